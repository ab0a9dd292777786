/** Starts the real service (HTTP, SQLite file, poller) in-process against a vendor URL, for integration tests. */
import { join } from 'node:path';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import type { Clock } from '../../src/core/ports.ts';
import { startService } from '../../src/entry/node.ts';
import type { RequestLogEntry } from '../../src/sim/request-log.ts';
import { startSimulatedVendor, type RunningSimulatedVendor } from '../../src/sim/server.ts';
import type { RawIncident } from '../fixtures/vendor-builders.ts';
import { ADMIN_TOKEN } from './admin-token.ts';
import { HARNESS_SETTINGS } from './harness-settings.ts';
import { tempDir } from './temp-archive.ts';

export { ADMIN_TOKEN } from './admin-token.ts';

export type TestService = {
  url: string;
  dir: string;
  config: Config;
  logs: string[];
  get(path: string): Promise<{ status: number; body: any }>;
  poll(): Promise<any>;
  /** Sends what the outbox holds that is due, and resolves when that round is done. */
  deliverNow(): Promise<void>;
  /** An admin API call: JSON in and out. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
};

export async function startTestService(statusUrl: string, options: { dir?: string; env?: Record<string, string>; clock?: Clock } = {}): Promise<TestService> {
  const dir = options.dir ?? tempDir();
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_PATH: join(dir, 'archive.db'),
    STATUS_URL: statusUrl,
    POLL_SCHEDULE: '0 0 1 1 *', // effectively never: tests poll through the admin API
    POLL_ON_START: 'false',
    POLL_TIMEOUT_MS: '2000',
    ADMIN_TOKEN,
    LOG_LEVEL: 'debug',
    ...HARNESS_SETTINGS,
    ...options.env,
  });
  const logs: string[] = [];
  const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(line) });
  const service = await startService(config, logger, options.clock);
  const get = async (path: string) => {
    const res = await fetch(service.url + path);
    return { status: res.status, body: await res.json() };
  };
  return {
    url: service.url,
    dir,
    config,
    logs,
    get,
    async poll() {
      const res = await fetch(`${service.url}/api/admin/poll`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return res.json();
    },
    deliverNow: () => service.deliverNow(),
    async admin(method, path, body) {
      const res = await fetch(service.url + path, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    close: () => service.close(),
  };
}

/** The simulated vendor with an empty world, driven over its HTTP control API. */
export type TestVendor = RunningSimulatedVendor & {
  setIncidents(incidents: RawIncident[]): Promise<void>;
  fault(spec: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  requests(): Promise<RequestLogEntry[]>;
};

export async function startTestVendor(options: Parameters<typeof startSimulatedVendor>[0] = {}): Promise<TestVendor> {
  const sim = await startSimulatedVendor({ scenario: { name: 'empty', initialWorld: () => [], steps: [], loop: false }, ...options });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(sim.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return Object.assign(sim, {
    setIncidents: async (incidents: RawIncident[]) => void (await call('PUT', '/_sim/incidents', incidents)),
    fault: async (spec: Record<string, unknown>) => void (await call('POST', '/_sim/faults', spec)),
    clearFaults: async () => void (await call('DELETE', '/_sim/faults')),
    requests: async () => ((await call('GET', '/_sim/requests')) as { requests: RequestLogEntry[] }).requests,
  });
}
