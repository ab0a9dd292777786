/**
 * The simulated Statuspage page over real HTTP on loopback, read by the Statuspage parser and
 * mapped through the main feed's diff: its story comes out as the events it should make.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planPoll, type ArchivedIncident } from '../../src/core/diff.ts';
import type { StatusEvent } from '../../src/core/events.ts';
import {
  componentChanges,
  componentDirectory,
  componentStates,
  observedIncidents,
  type ComponentState,
  type PageReading,
} from '../../src/core/statuspage/mapping.ts';
import { NotStatuspageError, parseIncidents, parseMaintenances, parseSummary } from '../../src/core/statuspage/schema.ts';
import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';

const START = Date.UTC(2026, 10, 20, 9, 0, 0);
let sim: RunningSimulatedStatuspage;

beforeAll(async () => {
  sim = await startSimulatedStatuspage({ clock: () => START, name: 'Acme Cloud' });
});
afterAll(() => sim.close());

async function get(path: string, etag?: string): Promise<{ status: number; text: string; etag: string | null }> {
  const response = await fetch(`${sim.url}${path}`, { headers: etag ? { 'If-None-Match': etag } : {}, signal: AbortSignal.timeout(5000) });
  return { status: response.status, text: await response.text(), etag: response.headers.get('etag') };
}

/** One poller's memory: the archive, the last component states, and the events so far. */
function createPoller(endpoints: { incidents: boolean; maintenances: boolean }) {
  const archive = new Map<string, ArchivedIncident>();
  let components = new Map<string, ComponentState>();
  const events: StatusEvent[] = [];
  const flips: string[] = [];
  return {
    archive,
    events,
    flips,
    async poll() {
      const reading: PageReading = { summary: parseSummary((await get('/api/v2/summary.json')).text) };
      if (endpoints.incidents) reading.incidents = parseIncidents((await get('/api/v2/incidents.json')).text).incidents.items;
      if (endpoints.maintenances) reading.maintenances = parseMaintenances((await get('/api/v2/scheduled-maintenances.json')).text).scheduledMaintenances.items;
      const items = reading.summary!.components.items;
      const plan = planPoll({
        observed: observedIncidents('acme', reading, componentDirectory(items)),
        archived: archive,
        now: START,
        backfill: archive.size === 0,
      });
      for (const w of plan.writes) archive.set(w.incident.id, { ...w.incident, revision: w.revision, resolvedAt: w.resolvedAt });
      events.push(...plan.events);
      const states = componentStates(items);
      if (components.size > 0) flips.push(...componentChanges(components, states).map((c) => `${c.name}: ${c.from} -> ${c.to}`));
      components = new Map(states.map((c) => [c.id, c]));
    },
  };
}

const describeEvent = (e: StatusEvent): string =>
  e.data.type === 'incident.status_changed' ? `${e.incidentId} ${e.data.from}->${e.data.to}` : `${e.incidentId} ${e.type.slice('incident.'.length)}`;

describe('the simulated Statuspage page', () => {
  it('tells its story to a poller reading all three endpoints: every step an event, none false', async () => {
    sim.page.reset();
    const poller = createPoller({ incidents: true, maintenances: true });
    await poller.poll();
    expect(poller.events.map(describeEvent)).toEqual(['acme:swinc0000000 created']);
    expect(poller.events[0]?.backfill).toBe(true);
    for (let i = 0; i < sim.page.snapshot().stepCount; i++) {
      sim.page.advance();
      await poller.poll();
    }
    const incident = 'acme:swinc0000001';
    const maintenance = 'acme:swmnt0000001';
    expect(poller.events.slice(1).map(describeEvent)).toEqual([
      `${incident} created`,
      `${incident} note_added`, // identified
      `${incident} note_added`, // monitoring
      `${incident} note_added`, // investigating again: our status stays active
      `${incident} active->resolved`,
      `${incident} note_added`,
      `${incident} note_edited`, // the resolved update edited in place
      `${incident} note_added`, // postmortem: still resolved
      `${maintenance} created`,
      `${maintenance} scheduled->active`,
      `${maintenance} note_added`,
      `${maintenance} note_added`, // verifying
      `${maintenance} active->completed`,
      `${maintenance} note_added`,
    ]);
    expect(poller.archive.get(incident)).toMatchObject({ status: 'resolved', vendorStatus: 'postmortem', type: 'outage', services: ['API'] });
    expect(poller.archive.get(incident)?.notes).toHaveLength(6);
    expect(poller.archive.get(maintenance)).toMatchObject({ type: 'maintenance', status: 'completed', vendorStatus: 'completed', services: ['Database'] });
    expect(poller.flips).toEqual([
      'API: operational -> partial_outage',
      'API: partial_outage -> operational',
      'API: operational -> partial_outage',
      'API: partial_outage -> operational',
      'Website: operational -> degraded_performance',
      'Website: degraded_performance -> operational',
      'Database: operational -> under_maintenance',
      'Database: under_maintenance -> operational',
    ]);
  });

  it('drops the resolved incident from summary.json, and a summary-only poller never resolves it', async () => {
    sim.page.reset();
    const poller = createPoller({ incidents: false, maintenances: false });
    await poller.poll();
    for (let i = 0; i < 5; i++) {
      sim.page.advance();
      await poller.poll();
    }
    expect(sim.page.snapshot().nextStep).toBe('the resolved update edited in place');
    expect(parseSummary((await get('/api/v2/summary.json')).text).incidents.items).toEqual([]);
    expect(poller.archive.get('acme:swinc0000001')).toMatchObject({ status: 'active', vendorStatus: 'investigating', resolvedAt: null });
  });

  it('answers conditional GETs with 304 until the page changes', async () => {
    sim.page.reset();
    const first = await get('/api/v2/incidents.json');
    expect(first.status).toBe(200);
    expect(first.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await get('/api/v2/incidents.json', first.etag!)).status).toBe(304);
    const lastModified = (await fetch(`${sim.url}/api/v2/incidents.json`)).headers.get('last-modified');
    expect(lastModified).not.toBeNull();
    expect((await fetch(`${sim.url}/api/v2/incidents.json`, { headers: { 'If-Modified-Since': lastModified! } })).status).toBe(304);
    sim.page.advance();
    const changed = await get('/api/v2/incidents.json', first.etag!);
    expect(changed.status).toBe(200);
    expect(parseIncidents(changed.text).incidents.items.map((i) => i.id)).toEqual(['swinc0000001', 'swinc0000000']);
  });

  it('serves the faults a test asks for, which the parser refuses with a clear error', async () => {
    sim.page.reset();
    const refusal = async (): Promise<string> => {
      try {
        parseSummary((await get('/api/v2/summary.json')).text);
        return 'parsed';
      } catch (error) {
        expect(error).toBeInstanceOf(NotStatuspageError);
        return (error as Error).message;
      }
    };
    const control = (body: unknown) =>
      fetch(`${sim.url}/_sim/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await control({ target: 'summary', kind: 'html', times: 1 })).status).toBe(201);
    expect(await refusal()).toBe('this address does not answer in the Statuspage format: the body is HTML, not JSON');
    expect((await control({ target: '*', kind: 'body', body: '', times: 1 })).status).toBe(201);
    expect(await refusal()).toBe('this address does not answer in the Statuspage format: the body is empty');
    expect((await control({ target: 'summary', kind: 'malformed', times: 1 })).status).toBe(201);
    expect(await refusal()).toBe('this address does not answer in the Statuspage format: the body is not JSON');
    expect((await control({ target: 'summary', kind: 'oversize', times: 1 })).status).toBe(201);
    expect(await refusal()).toBe('this address does not answer in the Statuspage format: the body is longer than 4194304 characters');
    expect((await control({ target: 'summary', kind: 'status', status: 503, times: 1 })).status).toBe(201);
    expect((await get('/api/v2/summary.json')).status).toBe(503);
    expect((await control({ target: 'nowhere', kind: 'html' })).status).toBe(400);
    expect(await refusal()).toBe('parsed');
    const log = sim.page.requests().filter((r) => r.path === '/api/v2/summary.json');
    expect(log.slice(-6).map((r) => [r.fault, r.status])).toEqual([
      ['html', 200],
      ['body', 200],
      ['malformed', 200],
      ['oversize', 200],
      ['status', 503],
      [null, 200],
    ]);
  });

  it('is driven over its control API: advance, state and reset', async () => {
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    const advanced = (await (await fetch(`${sim.url}/_sim/advance`, { method: 'POST' })).json()) as { step: number };
    expect(advanced.step).toBe(1);
    const state = (await (await fetch(`${sim.url}/_sim/state`)).json()) as { nextStep: string; world: { incidents: { status: string }[] } };
    expect(state.nextStep).toBe('identified');
    expect(state.world.incidents.map((i) => i.status)).toEqual(['resolved', 'investigating']);
  });
});
