/**
 * The JSON API and the admin pages of one real app over one archive, through `app.request()`: what
 * a use case's test asks both faces, to check they give the same answer for the same input.
 */
import type { Clock, Mailer } from '../../src/core/ports.ts';
import { createApp } from '../../src/http/app.ts';
import { type AdminPageClient, signInAdmin } from './admin-page-client.ts';
import { ADMIN_TOKEN } from './admin-token.ts';
import { buildAppDeps, type TestAppDeps } from './app-deps.ts';
import { nodeAppPorts } from './node-app-ports.ts';
import type { TempArchive } from './temp-archive.ts';

const ORIGIN = 'http://localhost';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

export type AppFaces = {
  deps: TestAppDeps;
  /** A call of the admin API with the admin token (a GET unless `body` is given, then a POST of it); the JSON answer. */
  api<Body>(path: string, body?: unknown): Promise<{ status: number; body: Body }>;
  /** A signed-in admin's browser. */
  admin: AdminPageClient;
};

export type AppFacesOptions = {
  /** The settings as the process environment would hold them; ADMIN_TOKEN is set. */
  env?: Record<string, string>;
  /** The runtime's mailer, when a test sends mail. */
  mailer?: Mailer | null;
  clock?: Clock;
};

export async function appFaces(archive: TempArchive, options: AppFacesOptions = {}): Promise<AppFaces> {
  const ports = await nodeAppPorts(archive.connection, quiet, { clock: options.clock });
  const deps = await buildAppDeps({ ...ports, mailer: options.mailer ?? null }, { env: { ADMIN_TOKEN, ...options.env } });
  const app = createApp(deps);
  const fetch = async (url: string, init?: RequestInit) => app.request(url, init);
  return {
    deps,
    async api(path, body) {
      const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
      const res = await fetch(ORIGIN + path, body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    },
    admin: await signInAdmin({ url: ORIGIN, fetch }),
  };
}
