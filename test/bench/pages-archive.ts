/**
 * The dashboard-pages benchmark's archive: a year of synthetic incidents seeded directly in SQL,
 * plus one incident written through the real store over four polls, so its page has a change
 * history (seeded incidents have no events). Returns only what the checks need, so the synthetic
 * data set is not kept alive while the pages are measured.
 */
import { planPoll } from '../../src/core/diff.ts';
import type { PollRun } from '../../src/core/ports.ts';
import type { SimIncident } from '../../src/sim/world.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { expectBench } from './harness.ts';
import { seedDirect } from './seed.ts';
import { timed } from './stats.ts';
import { COMMON_WORD, DAY_MS, syntheticIncidents, toIncidents } from './synthetic.ts';

const ACTIVE = 3;
const MINUTE_MS = 60_000;
/** Appended to the first note by the third poll: a note_edited event. No word of it starts like a searched one. */
const EDIT = '<p>Update: this affects only workspaces on the Enterprise Grid plan.</p>';

/** What the pages must show for the benchmark to count them as rendered from the archive. */
export type PagesExpectations = {
  /** Still going on, newest first: cards on `/`. */
  active: { id: string; title: string }[];
  /** A resolved incident of the last 90 days: a line of a bar's tooltip on `/`. */
  recent: { title: string; type: string };
  newestId: string;
  /** The newest incident mentioning COMMON_WORD, how many do, and the newest naming Files. */
  newestCommonId: string;
  commonCount: number;
  newestFilesId: string;
  /** The incident with a change history: `/incidents/:id`. */
  story: { id: string; title: string; notes: number; events: number };
};

export type PagesArchive = { archive: TempArchive; seedMs: number; expected: PagesExpectations };

export async function seedPagesArchive(count: number, nowMs: number): Promise<PagesArchive> {
  // A year up to yesterday; the newest few still going on.
  const sims = syntheticIncidents({ count, endMs: nowMs - DAY_MS, spanMs: 364 * DAY_MS, active: ACTIVE, seed: 61 });
  // The story: the newest resolved incident with at least six notes (four polls tell it).
  const story = sims.findLast((s) => s.status === 'resolved' && s.notes.length >= 6 && !s.title.includes('upload'));
  expectBench(story !== undefined, 'no synthetic incident has six notes to tell over four polls');
  story.notes[0]!.body += EDIT;
  const archive = openTempArchive(tempDir('statuswatch-bench-pages-'));
  try {
    const { ms: directMs } = await timed(() => seedDirect(archive.sqlite, toIncidents(sims.filter((s) => s !== story)), nowMs));
    const { value: events, ms: storyMs } = await timed(() => tellStory(archive, story, nowMs));
    const mentions = (s: SimIncident) => [s.title, ...s.notes.map((n) => n.body)].some((t) => t.toLowerCase().includes(COMMON_WORD));
    const newest = <T>(list: T[]) => list.at(-1);
    const recent = sims.findLast((s) => s.status === 'resolved' && s.dateCreatedMs > nowMs - 80 * DAY_MS && s !== story)!;
    const expected: PagesExpectations = {
      active: sims
        .slice(-ACTIVE)
        .reverse()
        .map((s) => ({ id: String(s.id), title: s.title })),
      recent: { title: recent.title, type: recent.type },
      newestId: String(sims.at(-1)!.id),
      newestCommonId: String(newest(sims.filter(mentions))!.id),
      commonCount: sims.filter(mentions).length,
      newestFilesId: String(newest(sims.filter((s) => s.services.includes('Files')))!.id),
      story: { id: String(story.id), title: story.title, notes: story.notes.length, events },
    };
    return { archive, seedMs: directMs + storyMs, expected };
  } catch (error) {
    archive.remove();
    throw error;
  }
}

/**
 * The story incident as four polls saw it: first archived (backfill) with one note and a
 * provisional title; then retitled with a second note; then its first note edited and a third
 * added; then resolved with the rest. Returns the number of events written.
 */
async function tellStory(archive: TempArchive, story: SimIncident, nowMs: number): Promise<number> {
  const [first, ...rest] = story.notes;
  const original = { ...first!, body: first!.body.slice(0, -EDIT.length) };
  const version = (notes: SimIncident['notes'], patch: Partial<SimIncident> = {}): SimIncident => ({
    ...story,
    status: 'active',
    notes,
    dateUpdatedMs: notes.at(-1)!.dateCreatedMs,
    ...patch,
  });
  const versions = [
    version([original], { title: `Investigating reports of issues with ${story.services[0]}` }),
    version([original, rest[0]!]),
    version([first!, rest[0]!, rest[1]!]),
    story,
  ];
  let events = 0;
  for (const [i, sim] of versions.entries()) {
    const [incident] = toIncidents([sim]);
    const now = nowMs - (versions.length - i) * 10 * MINUTE_MS;
    const plan = planPoll({ observed: [incident!], archived: await archive.store.loadIncidents([incident!.id]), now, backfill: i === 0 });
    expectBench(plan.writes.length === 1, `poll ${i + 1} of incident ${story.id} would write nothing`);
    const run: PollRun = { id: `bench-pages-story-${i + 1}`, startedAt: now, finishedAt: now, outcome: 'ok', sources: [], changes: {} };
    await archive.store.applyPoll({ deliveries: [], run, plan, seenIds: [incident!.id], seenBefore: now, rejected: [], markSeeded: false });
    events += plan.events.length;
  }
  return events;
}
