/** The Workers pool's stand-in for test/helpers/service.ts: the simulated vendor runs on the Node side (fixture factory), driven over HTTP. */
import type { RawIncident } from '../../fixtures/vendor-builders.ts';
import { callFactory, type StartedFixture } from './fixture-client.ts';

export { ADMIN_TOKEN } from '../../helpers/admin-token.ts';

/** What the simulated vendor's request log holds (src/sim/request-log.ts), as its control API answers it. */
export type RequestLogEntry = Record<string, unknown>;

/** The vendor options that cross to the factory as JSON. */
export type TestVendorOptions = { historyWindowDays?: number; style?: 'modern' | 'legacy'; conditional?: boolean };

export type TestVendor = {
  url: string;
  port: number;
  setIncidents(incidents: RawIncident[]): Promise<void>;
  fault(spec: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  requests(): Promise<RequestLogEntry[]>;
  close(): Promise<void>;
};

export async function startTestVendor(options: TestVendorOptions = {}): Promise<TestVendor> {
  const { id, url } = await callFactory<StartedFixture>('POST', '/vendors', options);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  let closing: Promise<void> | undefined;
  return {
    url,
    port: Number(new URL(url).port),
    setIncidents: async (incidents) => void (await call('PUT', '/_sim/incidents', incidents)),
    fault: async (spec) => void (await call('POST', '/_sim/faults', spec)),
    clearFaults: async () => void (await call('DELETE', '/_sim/faults')),
    requests: async () => ((await call('GET', '/_sim/requests')) as { requests: RequestLogEntry[] }).requests,
    close: () => (closing ??= callFactory('DELETE', `/vendors/${id}`).then(() => {})),
  };
}
