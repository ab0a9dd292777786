/** A simulated page in the Statuspage format, driven over its HTTP control API (/_sim): no Node API, so workerd runs it too. */
import type { RequestLogEntry } from '../../src/sim/request-log.ts';

export type TestStatuspage = {
  /** The page's address, spelt so the runtime under test may reach it with WEBHOOK_ALLOW_PRIVATE. */
  url: string;
  fault(spec: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  requests(): Promise<RequestLogEntry[]>;
  close(): Promise<void>;
};

/** Drives a running page over its control API. */
export function controlledStatuspage(url: string, close: () => Promise<void>): TestStatuspage {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    url,
    fault: async (spec) => void (await call('POST', '/_sim/faults', spec)),
    clearFaults: async () => void (await call('DELETE', '/_sim/faults')),
    requests: async () => ((await call('GET', '/_sim/requests')) as { requests: RequestLogEntry[] }).requests,
    close,
  };
}
