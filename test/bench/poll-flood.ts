/**
 * Benchmark 1b: a hostile vendor that edits every incident of a feed near the body cap on every
 * poll. Measured: the longest event-loop block during the poll (what `/widget.json` waits behind),
 * the poll's duration and how much the database grows per poll, against a normal poll (one
 * incident edited in a real-sized feed) interleaved with it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Poller, PollResult } from '../../src/app/poller.ts';
import type { SimIncident } from '../../src/sim/world.ts';
import { expectBench, type SectionReport } from './harness.ts';
import { setUpPollWorld, type PollWorld } from './poll-setup.ts';
import { interleave, summarize, type BenchCase, type Summary } from './stats.ts';
import { heading, kb, ms, msAgainst, ratio, table } from './table.ts';

export type PollFloodOptions = {
  /** Incidents in the flooded feed: about 1.3 KB each, so 3,500 come near the 5 MB body cap. */
  floodIncidents: number;
  /** The normal poll's feed, as the real one (about 120). */
  normalIncidents: number;
  rounds: number;
};

/** What a `/widget.json` request may wait behind a poll. */
const BLOCK_GOAL_MS = 100;

type Sample = { blockMs: number; growthBytes: number; events: number; pending: number };

export async function benchPollFlood(options: PollFloodOptions): Promise<SectionReport> {
  const setup = (incidents: number) => setUpPollWorld({ archiveIncidents: incidents, feedIncidents: incidents, activeIncidents: 2, seedChunk: 500 });
  const normal = await setup(options.normalIncidents);
  let flood: PollWorld | undefined;
  try {
    flood = await setup(options.floodIncidents);
    return await measure(normal, flood, options);
  } finally {
    await flood?.close();
    await normal.close();
  }
}

async function measure(normal: PollWorld, flood: PollWorld, options: PollFloodOptions): Promise<SectionReport> {
  const normalPoller = normal.newPoller(normal.vendor.url);
  const floodPoller = flood.newPoller(flood.vendor.url);
  for (const poller of [normalPoller, floodPoller]) {
    const first = await poller.pollOnce();
    expectBench(first.status === 'ok' && first.events.length === 0, `the first poll should find the seeded archive current, got ${describe(first)}`);
  }

  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  const samples = new Map<string, Sample[]>();
  let round = 0;
  const pollCase = (name: string, world: PollWorld, poller: Poller, edit: () => void): BenchCase => {
    let sizeBefore = 0;
    return {
      name,
      before() {
        edit();
        world.vendor.vendor.state.render('v2/current');
        world.vendor.vendor.state.render('v2/history');
        sizeBefore = databaseBytes(world);
        loopDelay.reset();
        loopDelay.enable();
      },
      run: () => poller.pollOnce(),
      async after(value) {
        // A block is recorded when the monitor's timer fires after it: give it that turn.
        await settle();
        loopDelay.disable();
        const result = value as PollResult;
        expectBench(result.status === 'ok' && result.events.length > 0, `${name}: expected an ok poll with events, got ${describe(result)}`);
        const list = samples.get(name) ?? samples.set(name, []).get(name)!;
        list.push({
          blockMs: loopDelay.max / 1e6,
          growthBytes: databaseBytes(world) - sizeBefore,
          events: result.events.length,
          pending: result.run.pendingIncidents ?? 0,
        });
      },
    };
  };

  const normalWorld = normal.vendor.vendor.state.incidents();
  const floodWorld = flood.vendor.vendor.state.incidents();
  const feedBytes = flood.vendor.vendor.state.render('v2/history').body.length;
  const normalCase = pollCase('normal poll: one incident edited, real-sized feed', normal, normalPoller, () => {
    const target = normalWorld[round % normalWorld.length]!;
    normal.vendor.vendor.upsertIncident({ ...target, title: `${target.title} (edit ${round})` });
  });
  const floodCase = pollCase('flood: every incident edited', flood, floodPoller, () => {
    flood.vendor.vendor.setIncidents(floodWorld.map((incident) => edited(incident, round)));
  });
  const timings = await interleave([normalCase, floodCase, { name: 'next round', run: async () => void round++ }], options.rounds);
  const floodBytes = flood.vendor.vendor.state.render('v2/history').body.length;

  // Then the vendor stops: polls continue until the archive holds its last version of everything.
  let drainPolls = 0;
  let drainEvents = 0;
  let drainBlockMs = 0;
  for (; drainPolls < 1_000; drainPolls++) {
    loopDelay.reset();
    loopDelay.enable();
    const result = await floodPoller.pollOnce();
    await settle();
    loopDelay.disable();
    expectBench(result.status === 'ok', `a drain poll failed: ${describe(result)}`);
    if (result.events.length === 0) break;
    drainEvents += result.events.length;
    drainBlockMs = Math.max(drainBlockMs, loopDelay.max / 1e6);
  }

  const row = (name: string, base: Summary) => {
    const time = summarize(timings.get(name)!);
    const list = samples.get(name)!;
    const block = summarize(list.map((s) => s.blockMs));
    return [
      name,
      ms(time.p50),
      ratio(time.p50 / base.p50),
      ms(block.p50),
      ms(block.max),
      kb(summarize(list.map((s) => s.growthBytes)).p50),
      String(summarize(list.map((s) => s.events)).p50),
      String(summarize(list.map((s) => s.pending)).p50),
    ];
  };
  const base = summarize(timings.get(normalCase.name)!);
  const text = [
    heading(`1b. Poll flood: ${options.floodIncidents.toLocaleString('en-US')} incidents, every one edited before every poll`),
    `flooded feed: history of ${options.floodIncidents} incidents, ${kb(feedBytes)} as seeded, ${kb(floodBytes)} after the last edit (cap 5,000,000 bytes)`,
    `${options.rounds} interleaved rounds of: normal poll, flood poll. Event-loop block: max of monitorEventLoopDelay (1 ms resolution) during the poll.`,
    '',
    table(
      ['case', 'p50 ms', 'p50 / normal', 'block p50 ms', 'block max ms', 'db growth / poll', 'events / poll', 'pending after'],
      [row(normalCase.name, base), row(floodCase.name, base)],
    ),
    '',
    `after the vendor stopped editing: ${drainPolls} more poll(s) applied ${drainEvents} events (longest block ${ms(drainBlockMs)} ms), then the archive was current.`,
  ].join('\n');
  const floodBlock = summarize(samples.get(floodCase.name)!.map((s) => s.blockMs));
  const goals = [
    {
      name: `poll flood: the event loop is held at most ${BLOCK_GOAL_MS} ms (p50 of each poll's longest block)`,
      met: floodBlock.p50 <= BLOCK_GOAL_MS,
      detail: `${msAgainst(floodBlock.p50, BLOCK_GOAL_MS)} ms (max ${ms(floodBlock.max)} ms; a normal poll: ${ms(summarize(samples.get(normalCase.name)!.map((s) => s.blockMs)).p50)} ms)`,
    },
  ];
  return { text, goals };
}

/** A title and every note body it has not had before: each incident makes several events. */
function edited(incident: SimIncident, round: number): SimIncident {
  return {
    ...incident,
    title: `${incident.title} (flood ${round})`,
    notes: incident.notes.map((note) => ({ ...note, body: `${note.body}<p>flood ${round}</p>` })),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

/** The database's logical size: pages in use times page size, WAL frames included. */
function databaseBytes(world: PollWorld): number {
  const sqlite = world.archive.sqlite;
  const pages = sqlite.pragma('page_count', { simple: true }) as number;
  const size = sqlite.pragma('page_size', { simple: true }) as number;
  return pages * size;
}

function describe(result: PollResult): string {
  if (result.status === 'skipped') return 'a skipped poll';
  return `${result.status}, ${result.events.length} events${result.run.error ? `: ${result.run.error}` : ''}`;
}
