import { describe, expect, it } from 'vitest';
import type { VendorIncidentJson } from '../../src/core/vendor-format.ts';
import { createSimulatedVendor } from '../../src/sim/app.ts';
import { demoScenario } from '../../src/sim/demo-scenario.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { getJson, setClock, startSim, SUMMER_NOON_MS } from './helpers.ts';

/** The sim's modern wire shape: the vendor's incident, with numeric ids as v2 sends them. */
type WireIncident = VendorIncidentJson & { id: number };

describe('demo scenario: seeded history', () => {
  const world = demoScenario(SUMMER_NOON_MS).initialWorld();

  it('has resolved past incidents with the quirks of the real feed', () => {
    const recent = world.filter((i) => i.dateUpdatedMs >= SUMMER_NOON_MS - 183 * 86_400_000);
    expect(recent.length).toBeGreaterThanOrEqual(7);
    expect(world.every((i) => i.status === 'resolved')).toBe(true);
    expect(world.some((i) => i.services.length === 0)).toBe(true);
    expect(world.some((i) => i.type === 'outage')).toBe(true);
    expect(world.some((i) => i.type === 'notice')).toBe(true);
    expect(world.some((i) => i.title.includes(' & '))).toBe(true);
    const bodies = world.flatMap((i) => i.notes.map((n) => n.body)).join('\n');
    for (const marker of ['<p>', '<br>', '&nbsp;', '<strong>']) expect(bodies).toContain(marker);
    for (const i of world) {
      expect(i.notes[0]?.dateCreatedMs).toBe(i.dateCreatedMs);
      expect(i.url).toMatch(/^https:\/\/slack-status\.com\/\d{4}-\d{2}\/[0-9a-f]{16}$/);
    }
  });

  it('includes one incident the 183-day history window has already forgotten', async () => {
    const sim = await startSim({ scenario: demoScenario(SUMMER_NOON_MS) });
    await setClock(sim, SUMMER_NOON_MS);
    const history = (await getJson(`${sim.url}/api/v2.0.0/history`)) as WireIncident[];
    const state = (await getJson(`${sim.url}/_sim/state`)) as { incidents: WireIncident[] };
    expect(state.incidents.map((i) => i.id)).toContain(1540);
    expect(history.map((i) => i.id)).not.toContain(1540);
    expect(history).toHaveLength(state.incidents.length - 1);
  });
});

describe('demo scenario: timeline', () => {
  it('walks every step through the feed, editing a title without moving date_updated', async () => {
    const sim = await startSim({ scenario: demoScenario(SUMMER_NOON_MS) });
    await setClock(sim, SUMMER_NOON_MS);
    const initial = (await getJson(`${sim.url}/_sim/state`)) as { step: number; stepCount: number };
    expect(initial.step).toBe(0);
    expect(initial.stepCount).toBeGreaterThanOrEqual(8);

    const snapshots: WireIncident[][] = [(await getJson(`${sim.url}/api/v2.0.0/history`)) as WireIncident[]];
    const activeCounts: number[] = [];
    for (let step = 1; step <= initial.stepCount; step++) {
      const res = await fetch(`${sim.url}/_sim/advance`, { method: 'POST' });
      expect(((await res.json()) as { step: number }).step).toBe(step);
      snapshots.push((await getJson(`${sim.url}/api/v2.0.0/history`)) as WireIncident[]);
      const current = (await getJson(`${sim.url}/api/v2.0.0/current`)) as { active_incidents: unknown[] };
      activeCounts.push(current.active_incidents.length);
    }

    // Both incidents overlap, and all is quiet again at the end.
    expect(Math.max(...activeCounts)).toBe(2);
    expect(activeCounts.at(-1)).toBe(0);

    const quietEdits: string[] = [];
    const noteEdits: string[] = [];
    for (let k = 1; k < snapshots.length; k++) {
      for (const after of snapshots[k] ?? []) {
        const before = snapshots[k - 1]?.find((i) => i.id === after.id);
        if (!before || before.date_updated !== after.date_updated) continue;
        if (before.title !== after.title) quietEdits.push(`${before.title} -> ${after.title}`);
        if (JSON.stringify(before.notes) !== JSON.stringify(after.notes)) noteEdits.push(String(after.id));
      }
    }
    expect(quietEdits).toHaveLength(1);
    expect(noteEdits).toHaveLength(1);

    const final = snapshots.at(-1) ?? [];
    const newIds = final.map((i) => i.id).filter((id) => !(snapshots[0] ?? []).some((i) => i.id === id));
    expect(newIds).toHaveLength(2);
    const outage = final.find((i) => newIds.includes(i.id) && i.type === 'outage');
    expect(outage?.services).toHaveLength(2);
    expect(outage?.status).toBe('resolved');
    for (const i of final.filter((x) => newIds.includes(x.id))) {
      expect(i.notes[0]?.date_created).toBe(i.date_created);
      expect(i.notes.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('loops with fresh ids after the last step, and reset goes back to the seeded world', () => {
    const vendor = createSimulatedVendor({ scenario: demoScenario(SUMMER_NOON_MS), clock: () => SUMMER_NOON_MS });
    const seededIds = vendor.snapshot().incidents.map((i) => i.id);
    const stepCount = vendor.snapshot().stepCount;
    for (let i = 0; i < stepCount; i++) vendor.advance();
    const firstCycleIds = vendor.snapshot().incidents.map((i) => i.id);
    expect(vendor.advance()).toBe(1);
    const snapshot = vendor.snapshot();
    expect(snapshot.cycle).toBe(2);
    const fresh = snapshot.incidents.filter((i) => !firstCycleIds.includes(i.id as number));
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ status: 'active', id: Math.max(...(firstCycleIds as number[])) + 1 });
    vendor.reset();
    expect(vendor.snapshot()).toMatchObject({ step: 0, cycle: 1 });
    expect(vendor.snapshot().incidents.map((i) => i.id)).toEqual(seededIds);
    vendor.close();
  });

  it('tags the first incident of each loop with the service its title names', () => {
    const vendor = createSimulatedVendor({ scenario: demoScenario(SUMMER_NOON_MS), clock: () => SUMMER_NOON_MS });
    const stepCount = vendor.snapshot().stepCount;
    for (let i = 0; i < 3 * stepCount; i++) vendor.advance();
    const servicesByTitle = new Map(vendor.snapshot().incidents.map((i) => [i.title, i.services]));
    vendor.close();
    expect(servicesByTitle.get('Some users are having trouble sending and editing messages')).toEqual(['Messaging']);
    expect(servicesByTitle.get('Files and images may fail to upload')).toEqual(['Files']);
    expect(servicesByTitle.get('Canvases and lists are slow to open')).toEqual(['Canvases']);
  });

  it('auto-advances on an interval until closed', async () => {
    const sim = await startSim({ scenario: demoScenario(SUMMER_NOON_MS), autoAdvanceMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const step = ((await getJson(`${sim.url}/_sim/state`)) as { step: number }).step;
    expect(step).toBeGreaterThanOrEqual(2);
    sim.vendor.close();
    const position = (): [number, number] => [sim.vendor.snapshot().step, sim.vendor.snapshot().cycle];
    const stopped = position();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(position()).toEqual(stopped);
  });
});

describe('statuswatch simulate', () => {
  it('with --web-api also serves the Web API, with a workspace whose bot token works and whose channel page opens', async () => {
    const { child } = spawnCli(['simulate', '--sim-port', '0', '--web-api-port', '0', '--step-seconds', '0'], { HOST: '127.0.0.1' });
    let stderr = '';
    const logged = await new Promise<{ url: string; channel: string; botToken: string }>((resolve, reject) => {
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
        const line = stderr.split('\n').find((l) => l.includes('"msg":"simulated Web API is serving"'));
        if (line) resolve(JSON.parse(line) as { url: string; channel: string; botToken: string });
      });
      child.on('exit', () => reject(new Error(`simulate exited early: ${stderr}`)));
    });
    try {
      const who = await fetch(`${logged.url}/api/auth.test`, { method: 'POST', headers: { Authorization: `Bearer ${logged.botToken}` } });
      expect(await who.json()).toMatchObject({ ok: true, team: 'Demo workspace' });
      expect((await fetch(logged.channel)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('refuses a --web-api-port that is not a port, in one line', async () => {
    const result = await runCli(['simulate', '--sim-port', '0', '--web-api-port', 'abc'], { HOST: '127.0.0.1' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^statuswatch: --web-api-port "abc": not a port number/)]);
  });

  it('logs a URL a browser can open when it listens on every interface', async () => {
    const { child } = spawnCli(['simulate', '--sim-port', '0', '--step-seconds', '0'], { HOST: '0.0.0.0' });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
        const match = /"msg":"simulated vendor is serving","url":"([^"]+)"/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.on('exit', () => reject(new Error(`simulate exited early: ${stderr}`)));
    });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${url}/api/v2.0.0/current`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
