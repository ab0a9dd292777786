/** The demo's three status pages, polled step by step through the source poller over real HTTP: each story makes exactly the news it tells. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchPageReader } from '../../src/adapters/fetch-page-reader.ts';
import { createSourcePoller, type SourcePollResult } from '../../src/app/source-poller.ts';
import type { Clock } from '../../src/core/ports.ts';
import {
  DEMO_STATUSPAGES,
  GITFORGE_INCIDENT_ID,
  NIMBUS_MAINTENANCE_ID,
  startDemoStatuspages,
  type RunningDemoStatuspage,
} from '../../src/sim/statuspage/demo-pages.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

let archive: TempArchive;
let pages: RunningDemoStatuspage[] = [];
let now = Date.UTC(2026, 10, 27, 9, 0, 0);
const clock: Clock = { now: () => now };

beforeAll(async () => {
  archive = openTempArchive();
  pages = await startDemoStatuspages({ host: '127.0.0.1' });
});
afterAll(async () => {
  for (const page of pages) await page.close();
  archive.remove();
});

/** Every step of one page's story, polled a minute apart: the events and component moves of each poll. */
async function playStory(page: RunningDemoStatuspage) {
  const id = `src_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  expect(await archive.store.addSource({ id, kind: 'statuspage', name: page.name, url: page.url, createdAt: now }, 100)).toEqual({ added: true });
  const poller = createSourcePoller({
    store: archive.store,
    reader: createFetchPageReader({ timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
    clock,
    logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
    instanceId: 'a',
    newId: randomUUID,
  });
  const describe = (result: SourcePollResult) => {
    if (result.status !== 'ok') throw new Error(`poll ${result.status}: ${JSON.stringify(result)}`);
    // A component's change of state is an event of its own (component.status_changed).
    return result.events.map((e) =>
      e.data.type === 'component.status_changed'
        ? `${e.data.component.name}: ${e.data.from} -> ${e.data.to}`
        : `${e.type} ${e.incidentId.split(':')[1]}${e.backfill ? ' (backfill)' : ''}`,
    );
  };
  now += 60_000;
  const first = describe(await poller.pollSource(id));
  const steps: string[][] = [];
  for (let step = 0; step < page.page.snapshot().stepCount; step++) {
    page.page.advance();
    now += 60_000;
    steps.push(describe(await poller.pollSource(id)));
  }
  return { id, first, steps };
}

const running = (name: string) => pages.find((p) => p.name === name)!;

it('serves three pages of their own, each named by its page.name on an origin of its own', () => {
  expect(pages.map((p) => p.name)).toEqual(DEMO_STATUSPAGES.map((p) => p.name));
  expect(new Set(pages.map((p) => new URL(p.url).origin)).size).toBe(3);
});

it('Gitforge: a code host whose incident gains a note, recovers, is resolved, and has its resolved update rewritten', async () => {
  const { id, first, steps } = await playStory(running('Gitforge'));
  const inc = GITFORGE_INCIDENT_ID;
  expect(first).toEqual(['incident.created gfinc0000000 (backfill)']);
  expect(steps).toEqual([
    [`incident.created ${inc}`, 'CI runners: operational -> degraded_performance'],
    [`incident.note_added ${inc}`],
    [`incident.note_added ${inc}`, 'CI runners: degraded_performance -> operational'],
    [`incident.status_changed ${inc}`, `incident.note_added ${inc}`],
    [`incident.note_edited ${inc}`],
  ]);
  const [incident] = [...(await archive.store.loadIncidents([`${id}:${inc}`])).values()];
  expect([incident!.status, incident!.notes.length]).toEqual(['resolved', 4]);
  expect(incident!.notes.at(-1)!.body).toMatch(/^This incident has been resolved\. A change to the autoscaling limits/);
});

it('Nimbus Cloud: a maintenance scheduled, reminded, in progress, verifying and completed, its groups listed after their children', async () => {
  const { id, first, steps } = await playStory(running('Nimbus Cloud'));
  const mnt = NIMBUS_MAINTENANCE_ID;
  expect(first).toEqual(['incident.created nbinc0000000 (backfill)']);
  expect(steps).toEqual([
    [`incident.created ${mnt}`],
    [`incident.note_added ${mnt}`],
    [`incident.status_changed ${mnt}`, `incident.note_added ${mnt}`, 'FRA1: operational -> under_maintenance', 'FRA1: operational -> under_maintenance'],
    [`incident.note_added ${mnt}`, 'FRA1: under_maintenance -> operational', 'FRA1: under_maintenance -> operational'],
    [`incident.status_changed ${mnt}`, `incident.note_added ${mnt}`],
  ]);
  const [maintenance] = [...(await archive.store.loadIncidents([`${id}:${mnt}`])).values()];
  // Two components called FRA1: each named with its group.
  expect([maintenance!.type, maintenance!.status, maintenance!.services]).toEqual(['maintenance', 'completed', ['Compute / FRA1', 'Object Storage / FRA1']]);
});

it('Paystream: a component flips to degraded and back with no incident, and no incident is made of it', async () => {
  const { first, steps } = await playStory(running('Paystream'));
  expect(first).toEqual(['incident.created psinc0000000 (backfill)']);
  expect(steps).toEqual([['Payouts: operational -> degraded_performance'], ['Payouts: degraded_performance -> operational']]);
});
