/**
 * Captures of Statuspage pages replayed in time order THROUGH the simulated page over real HTTP,
 * with the source poller reading after each capture into a real SQLite archive: ours under
 * test/fixtures/statuspage-replay always, and the shared real captures in
 * ../shared/fixtures/real/statuspage when that folder is there (never copied into the repository).
 * What the archive must hold afterwards comes from the captures alone: every incident and every
 * update shown (each version of an edited one), one created event per incident, no status event
 * the page never showed, nothing finished that the page did not finish, and what it finished finished.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../src/adapters/console-logger.ts';
import { createFetchPageReader } from '../src/adapters/fetch-page-reader.ts';
import { createSourcePoller } from '../src/app/source-poller.ts';
import type { StatusEvent } from '../src/core/events.ts';
import type { Clock } from '../src/core/ports.ts';
import { startSimulatedStatuspage } from '../src/sim/statuspage/app.ts';
import { recordedSteps, type SpCapture } from '../src/sim/statuspage/recorded.ts';
import { openTempArchive, type TempArchive } from './helpers/temp-archive.ts';

type Endpoint = 'summary' | 'incidents' | 'scheduled-maintenances';
type Timeline = { name: string; captures: SpCapture[] };

const OURS_DIR = resolve(import.meta.dirname, 'fixtures/statuspage-replay');
const REAL_DIR = resolve(import.meta.dirname, '../../shared/fixtures/real/statuspage');
const ENDPOINTS: readonly string[] = ['summary', 'incidents', 'scheduled-maintenances'];

/** Ours: a folder per page, `NN__<endpoint>.json`, the same NN captured together. */
function ourTimelines(): Timeline[] {
  return readdirSync(OURS_DIR)
    .filter((d) => statSync(join(OURS_DIR, d)).isDirectory())
    .sort()
    .map((dir) => {
      const byStep = new Map<string, SpCapture>();
      for (const file of readdirSync(join(OURS_DIR, dir)).sort()) {
        const [, step, endpoint] = /^(\d+)__([a-z-]+)\.json$/.exec(file) ?? [];
        if (!step || !ENDPOINTS.includes(endpoint!)) continue;
        const capture = byStep.get(step) ?? { name: `${dir}/${step}` };
        capture[endpoint as Endpoint] = readFileSync(join(OURS_DIR, dir, file), 'utf8');
        byStep.set(step, capture);
      }
      return { name: dir, captures: [...byStep.values()] };
    });
}

/**
 * The real captures as timelines: each series folder in its file order; elsewhere one page's
 * bodies grouped by capture time (the endpoints we poll only) in time order; a single incident
 * cut out of a list is served as a list of one, under a page object made from its page_id.
 */
function realTimelines(): Timeline[] {
  const timelines: Timeline[] = [];
  const walk = (dir: string) => {
    const files = readdirSync(dir).sort();
    const pages = new Map<string, Map<string, SpCapture>>();
    for (const file of files) {
      const path = join(dir, file);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      if (!file.endsWith('.json')) continue;
      const text = readFileSync(path, 'utf8');
      const name = relative(REAL_DIR, path);
      const series = /^(\d+)__[^_]+__([a-z-]+)__/.exec(file);
      if (series) {
        const key = relative(REAL_DIR, dir);
        const steps = pages.get(key) ?? new Map<string, SpCapture>();
        if (ENDPOINTS.includes(series[2]!)) steps.set(series[1]!, { ...steps.get(series[1]!), name, [series[2] as Endpoint]: text });
        pages.set(key, steps);
        continue;
      }
      const [vendor, endpoint, when] = basename(file, '.json').split('__');
      if (endpoint === 'incident-object') {
        const object = JSON.parse(text) as { page_id: string; updated_at: string };
        const page = { id: object.page_id, name: vendor, url: `https://${vendor}.status.example`, time_zone: 'Etc/UTC', updated_at: object.updated_at };
        timelines.push({ name, captures: [{ name, incidents: `{"page":${JSON.stringify(page)},"incidents":[${text}]}` }] });
        continue;
      }
      if (!vendor || !ENDPOINTS.includes(endpoint ?? '')) continue;
      const key = relative(REAL_DIR, dir) ? `${relative(REAL_DIR, dir)}/${vendor}` : vendor;
      const steps = pages.get(key) ?? new Map<string, SpCapture>();
      steps.set(when!, { ...steps.get(when!), name, [endpoint as Endpoint]: text });
      pages.set(key, steps);
    }
    for (const [key, steps] of pages) {
      const captures = [...steps.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, capture]) => capture);
      if (captures.length > 0) timelines.push({ name: key, captures });
    }
  };
  walk(REAL_DIR);
  return timelines.sort((a, b) => (a.name < b.name ? -1 : 1));
}

type Shown = { status: string; updates: Map<string, string> };

/** What one capture shows, read with nothing of ours: each item's status words and updates (id -> body). */
function shownBy(capture: SpCapture): Map<string, Shown[]> {
  const shown = new Map<string, Shown[]>();
  type Item = { id: string; status: string; incident_updates?: { id: string; body: string }[] };
  const offer = (items: unknown) => {
    for (const item of (Array.isArray(items) ? items : []) as Item[]) {
      const list = shown.get(item.id) ?? [];
      list.push({ status: item.status, updates: new Map((item.incident_updates ?? []).map((u) => [u.id, u.body])) });
      shown.set(item.id, list);
    }
  };
  if (capture.summary) {
    const summary = JSON.parse(capture.summary) as { incidents?: unknown; scheduled_maintenances?: unknown };
    offer(summary.incidents);
    offer(summary.scheduled_maintenances);
  }
  if (capture.incidents) offer((JSON.parse(capture.incidents) as { incidents?: unknown }).incidents);
  if (capture['scheduled-maintenances']) offer((JSON.parse(capture['scheduled-maintenances']) as { scheduled_maintenances?: unknown }).scheduled_maintenances);
  return shown;
}

/** The vendor's words for a finished item, and ours for it. */
const FINISHED: Readonly<Record<string, string>> = { resolved: 'resolved', postmortem: 'resolved', completed: 'completed' };
const OUR_FINISHED = new Set(Object.values(FINISHED));

let archive: TempArchive;
let now = Date.UTC(2026, 10, 27, 9, 0, 0);
const clock: Clock = { now: () => now };
beforeAll(() => {
  archive = openTempArchive();
});
afterAll(() => archive.remove());

/** Replays one timeline and checks the archive against what its captures showed. */
async function replayAndCheck(timeline: Timeline): Promise<void> {
  const page = await startSimulatedStatuspage({ steps: recordedSteps(timeline.captures) });
  try {
    const sourceId = `src_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    expect(await archive.store.addSource({ id: sourceId, kind: 'statuspage', name: timeline.name, url: page.url, createdAt: now }, 1000)).toEqual({
      added: true,
    });
    const poller = createSourcePoller({
      store: archive.store,
      reader: createFetchPageReader({ timeoutMs: 5000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
      instanceId: 'replay',
      newId: randomUUID,
    });
    const vendorId = (incidentId: string) => incidentId.slice(sourceId.length + 1);

    const everShown = new Map<string, { statuses: string[]; updates: Map<string, Set<string>> }>();
    const events: { step: number; event: StatusEvent }[] = [];
    /** Per item, whether the page's status word changed by each step: a status event needs one. */
    const statusMovedBy = new Map<string, number>();
    /** Per item, the first capture that showed it finished. */
    const finishedBy = new Map<string, number>();
    for (const [step, capture] of timeline.captures.entries()) {
      page.page.advance();
      now += 60_000;
      for (const [id, showings] of shownBy(capture)) {
        const seen = everShown.get(id) ?? { statuses: [] as string[], updates: new Map<string, Set<string>>() };
        for (const showing of showings) {
          const last = seen.statuses.at(-1);
          if (last !== undefined && last !== showing.status && !statusMovedBy.has(id)) statusMovedBy.set(id, step);
          seen.statuses.push(showing.status);
          if (FINISHED[showing.status] && !finishedBy.has(id)) finishedBy.set(id, step);
          for (const [updateId, body] of showing.updates) seen.updates.set(updateId, (seen.updates.get(updateId) ?? new Set()).add(body));
        }
        everShown.set(id, seen);
      }
      // More changed incidents than one poll writes are written by the next polls of the same capture.
      for (let poll = 0; poll < 10; poll++) {
        const result = await poller.pollSource(sourceId);
        if (result.status !== 'ok') throw new Error(`${capture.name}: poll ${result.status}: ${JSON.stringify(result)}`);
        events.push(...result.events.map((event) => ({ step, event })));
        if (result.pendingIncidents === 0) break;
        now += 60_000;
      }
    }

    const ids = [...everShown.keys()];
    expect(ids.length, `${timeline.name} shows something`).toBeGreaterThan(0);
    const stored = await archive.store.loadIncidents(ids.map((id) => `${sourceId}:${id}`));
    for (const id of ids) {
      const incident = stored.get(`${sourceId}:${id}`);
      expect(incident, `${timeline.name}: ${id} archived`).toBeDefined();
      const shown = everShown.get(id)!;
      // Every update shown is a note, and every body it was shown with is in some version.
      expect(new Set(incident!.notes.map((n) => n.key.replace(/-0$/, '')))).toEqual(new Set(shown.updates.keys()));
      const versions = await archive.store.listVersions(`${sourceId}:${id}`, 1000);
      const bodies = new Set(versions.flatMap((v) => v.incident.notes.map((n) => n.body)));
      for (const [updateId, shownBodies] of shown.updates) {
        for (const body of shownBodies) expect(bodies.has(body), `${timeline.name}: ${id} update ${updateId} kept as shown`).toBe(true);
      }
      // Finished exactly when the page's last word on it was a finishing one.
      const lastWord = shown.statuses.at(-1)!;
      if (FINISHED[lastWord]) expect(incident!.status, `${timeline.name}: ${id}`).toBe(FINISHED[lastWord]);
      else {
        expect(OUR_FINISHED.has(incident!.status), `${timeline.name}: ${id} is not finished (${incident!.status})`).toBe(false);
        expect(incident!.resolvedAt).toBeNull();
      }
    }

    const created = events.filter((e) => e.event.type === 'incident.created').map((e) => vendorId(e.event.incidentId));
    expect(created.toSorted(), `${timeline.name}: one created event per incident`).toEqual(ids.toSorted());
    for (const { step, event } of events.filter((e) => e.event.type === 'incident.status_changed')) {
      const moved = statusMovedBy.get(vendorId(event.incidentId));
      expect(moved !== undefined && moved <= step, `${timeline.name}: ${event.incidentId} status event at capture ${step}`).toBe(true);
      // Never finished before the page said so, not even for a while.
      const to = (event.data as { to?: string }).to ?? '';
      if (OUR_FINISHED.has(to)) {
        const finished = finishedBy.get(vendorId(event.incidentId));
        expect(finished !== undefined && finished <= step, `${timeline.name}: ${event.incidentId} ${to} at capture ${step}`).toBe(true);
      }
    }
  } finally {
    await page.close();
  }
}

describe('replaying our captures through the simulated page', () => {
  it('serves each capture byte for byte, and a list the capture lacks holds only what its summary shows', async () => {
    const { captures } = ourTimelines().find((t) => t.name.startsWith('quillmail'))!;
    const page = await startSimulatedStatuspage({ steps: recordedSteps(captures) });
    try {
      const get = async (path: string) => (await fetch(`${page.url}/api/v2/${path}`)).text();
      page.page.advance();
      page.page.advance();
      page.page.advance();
      // Capture 02: summary and incidents as recorded (the tweet id past 2^53 as its digits).
      expect(await get('summary.json')).toBe(captures[2]!.summary);
      expect(await get('incidents.json')).toBe(captures[2]!.incidents);
      page.page.advance();
      // Capture 03 has no list: the one served holds the summary's two open incidents, no more.
      const list = JSON.parse(await get('incidents.json')) as { incidents: { id: string; incident_updates: { tweet_id: unknown }[] }[] };
      expect(list.incidents.map((i) => i.id)).toEqual(['qmi0dlv3x8mt', 'qmi0sgn7c1vb']);
      expect(await get('incidents.json')).toContain('"tweet_id":1760717163785245123');
    } finally {
      await page.close();
    }
  });

  it.each(ourTimelines().map((t) => [t.name, t] as const))('%s', async (_name, timeline) => {
    await replayAndCheck(timeline);
  });
});

describe.skipIf(!existsSync(REAL_DIR))('replaying the shared real captures through the simulated page', () => {
  it.each(existsSync(REAL_DIR) ? realTimelines().map((t) => [t.name, t] as const) : [])(
    '%s',
    async (_name, timeline) => {
      await replayAndCheck(timeline);
    },
    60_000,
  );
});
