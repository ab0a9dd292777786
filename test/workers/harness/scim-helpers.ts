/**
 * The Workers pool's stand-in for test/sim/scim-helpers.ts, for test/http files: workerd cannot
 * start a server, so `startScim` hands out the one simulated SCIM directory the global setup runs
 * on the Node side (test/helpers/workers-global-setup.ts), emptied and reset for the test.
 */
import { inject } from 'vitest';
import type {} from '../provided-context.ts';

/** What the tests read of the Node helper's RunningSimulatedScim (whose module is Node's: not imported here). */
type SharedScim = { url: string; token: string };

/** A control API call; fails the test when the sim refuses it. */
export async function control(sim: Pick<SharedScim, 'url'>, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${sim.url}/_sim${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status >= 300) throw new Error(`${method} /_sim${path} answered ${res.status}: ${JSON.stringify(parsed)}`);
  return parsed;
}

/** The shared directory, reset (empty, no faults, both versions, its own clock): options are the Node helper's and mean nothing here. */
export async function startScim(_options: unknown = {}): Promise<SharedScim> {
  const sim = { url: inject('scimUrl'), token: inject('scimToken') };
  await control(sim, 'POST', '/reset');
  await control(sim, 'DELETE', '/clock');
  return sim;
}
