/** Shared helpers for the simulated SCIM service's tests: a running server per test and plain HTTP calls. */
import { afterEach } from 'vitest';
import { startSimulatedScim, type RunningSimulatedScim, type StartSimulatedScimOptions } from '../../src/sim/scim/server.ts';

const running: RunningSimulatedScim[] = [];

/** Starts a SCIM sim on an ephemeral loopback port, its clock fixed at FIXED_NOW_MS; closed after the test. */
export async function startScim(options: StartSimulatedScimOptions = {}): Promise<RunningSimulatedScim> {
  const sim = await startSimulatedScim({ clock: () => FIXED_NOW_MS, ...options });
  running.push(sim);
  return sim;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

export const FIXED_NOW_MS = Date.parse('2026-11-23T09:00:00Z');

export type Reply = { status: number; headers: Headers; body: any };

export type CallOptions = { method?: string; body?: unknown; token?: string | null; headers?: Record<string, string>; signal?: AbortSignal };

/** One SCIM call: `path` is under /scim/<version>, e.g. "/Users?count=5". */
export async function scim(sim: RunningSimulatedScim, version: 'v1' | 'v2', path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const token = options.token === undefined ? sim.token : options.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${sim.url}/scim/${version}${path}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    signal: options.signal,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

export { control } from './scim-control.ts';

export const V2_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const V2_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const V1_CORE = 'urn:scim:schemas:core:1.0';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const V2_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A minimal valid create body for either version. */
export function newUser(version: 'v1' | 'v2', userName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { schemas: [version === 'v2' ? V2_USER : V1_CORE], userName, emails: [{ value: `${userName}@example.com`, primary: true }], ...extra };
}

export async function createUser(sim: RunningSimulatedScim, userName: string, version: 'v1' | 'v2' = 'v2', extra: Record<string, unknown> = {}): Promise<any> {
  const reply = await scim(sim, version, '/Users', { method: 'POST', body: newUser(version, userName, extra) });
  if (reply.status !== 201) throw new Error(`POST /Users answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** The v2.0 error body the spec's table describes. */
export function v2Error(code: string, status: number): Record<string, unknown> {
  return { schemas: [V2_ERROR], detail: code, status };
}
