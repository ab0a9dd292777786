/** Shared helpers for the simulated vendor's tests: a running server per test, vendor-shaped incidents. */
import { afterEach } from 'vitest';
import { startSimulatedVendor, type RunningSimulatedVendor, type StartSimulatedVendorOptions } from '../../src/sim/server.ts';

const running: RunningSimulatedVendor[] = [];

/** Starts a sim on an ephemeral port; it is closed after the test. */
export async function startSim(options: StartSimulatedVendorOptions = {}): Promise<RunningSimulatedVendor> {
  const sim = await startSimulatedVendor(options);
  running.push(sim);
  return sim;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

export type VendorIncidentJson = {
  id: number | string;
  title: string;
  type: string;
  status: string;
  url?: string;
  services: string[];
  date_created: string;
  date_updated: string;
  notes: { body: string; date_created: string }[];
};

/** A vendor-shaped incident with one note at date_created; override what the test cares about. */
export function incident(fields: Partial<VendorIncidentJson> & { id: number | string; date_created: string }): VendorIncidentJson {
  return {
    title: `Incident ${fields.id}`,
    type: 'incident',
    status: 'resolved',
    url: `https://slack-status.com/2026-07/${String(fields.id).padStart(16, '0')}`,
    services: ['Messaging'],
    date_updated: fields.date_created,
    notes: [{ body: '<p>Investigating.</p>', date_created: fields.date_created }],
    ...fields,
  };
}

export async function sendJson(url: string, method: string, body: unknown): Promise<Response> {
  return fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

/** Replaces the sim's world; fails the test if the sim refuses it. */
export async function putIncidents(sim: RunningSimulatedVendor, incidents: VendorIncidentJson[]): Promise<void> {
  const res = await sendJson(`${sim.url}/_sim/incidents`, 'PUT', incidents);
  if (res.status !== 200) throw new Error(`PUT /_sim/incidents answered ${res.status}: ${await res.text()}`);
}

export async function setClock(sim: RunningSimulatedVendor, nowMs: number): Promise<void> {
  const res = await sendJson(`${sim.url}/_sim/clock`, 'PUT', { nowMs });
  if (res.status !== 200) throw new Error(`PUT /_sim/clock answered ${res.status}`);
}

export async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return res.json();
}

/** 2026-07-15 12:00 in Pacific daylight time. */
export const SUMMER_NOON_MS = Date.parse('2026-07-15T12:00:00-07:00');
