/**
 * The Workers pool's stand-in for test/sim/scim-helpers.ts, for test/http files: workerd cannot
 * start a server, so `startScim` hands out the one simulated SCIM directory the global setup runs
 * on the Node side (test/helpers/workers-global-setup.ts), emptied and reset for the test.
 */
import { inject } from 'vitest';
import { control } from '../../sim/scim-control.ts';
import type {} from '../provided-context.ts';

export { control };

/** What the tests read of the Node helper's RunningSimulatedScim (whose module is Node's: not imported here). */
type SharedScim = { url: string; token: string };

/** The shared directory, reset (empty, no faults, both versions, its own clock): options are the Node helper's and mean nothing here. */
export async function startScim(_options: unknown = {}): Promise<SharedScim> {
  const sim = { url: inject('scimUrl'), token: inject('scimToken') };
  await control(sim, 'POST', '/reset');
  await control(sim, 'DELETE', '/clock');
  return sim;
}
