/** The poll-cycle benchmark's figures as a table, a few lines on rows written, and its goals. */
import type { Goal, SectionReport } from './harness.ts';
import type { PollCycleOptions } from './poll-cycle.ts';
import { summarize, type Summary } from './stats.ts';
import { heading, kb, ms, ratio, ratioAgainst, type Row, table } from './table.ts';

/** A poll costs at most this many times a bare fetch and parse of the same feed. */
const RATIO_GOAL = 2;

/** Rows one poll changed. `archiveFields`: fingerprint fields that moved, for polls that must not write. */
export type PollWrites = { changes: number; pollRuns: number; archiveFields?: string[] };

export type PollFigures = {
  options: PollCycleOptions;
  seedMs: number;
  archive: { incidents: number; notes: number };
  feed: { currentBytes: number; historyBytes: number; activeIncidents: number; historyIncidents: number };
  baseline: Summary;
  unchanged: { stats: Summary; writes: PollWrites[]; shortcut: number };
  changed: { stats: Summary; writes: PollWrites[] };
  conditional: { baseline: Summary; stats: Summary; writes: PollWrites[]; notModified: number };
};

export function pollReport(f: PollFigures): SectionReport {
  const { options, baseline, unchanged, changed, conditional } = f;
  const row = (name: string, s: Summary, against: Summary, writes: readonly PollWrites[] = []): Row => [
    name,
    ms(s.p50),
    ms(s.p95),
    ratio(s.p50 / against.p50),
    s === against ? '-' : ms(s.p50 - against.p50),
    writes.length === 0 ? '-' : String(median(writes.map((w) => w.changes))),
  ];
  const archiveWrites = unchanged.writes.filter((w) => w.archiveFields?.length).length;
  const polls = unchanged.writes.length;

  const text = [
    heading(`1. Poll cycle, ${options.archiveIncidents.toLocaleString('en-US')}-incident archive`),
    `archive: ${f.archive.incidents} incidents, ${f.archive.notes} notes, seeded through store.applyPoll in ${(f.seedMs / 1000).toFixed(1)} s`,
    `feed: history ${f.feed.historyIncidents} incidents (${kb(f.feed.historyBytes)}), current ${f.feed.activeIncidents} active (${kb(f.feed.currentBytes)})`,
    `the simulated vendor serves bodies it rendered once per change; after each edit it renders untimed, so the poll meets a vendor that serves`,
    `${options.rounds} interleaved rounds of: baseline, nothing changed, baseline, one incident changed (after ${options.warmUpRounds} warm-up rounds); full 200 bodies`,
    '',
    table(
      ['case', 'p50 ms', 'p95 ms', 'p50 / base', 'p50 - base ms', 'rows changed / poll'],
      [
        row('bare fetch x2 + JSON.parse (baseline)', baseline, baseline),
        row('poll, nothing changed', unchanged.stats, baseline, unchanged.writes),
        row('poll, one incident changed', changed.stats, baseline, changed.writes),
        row(`baseline, in ${options.conditionalRounds} rounds with the 304 case`, conditional.baseline, conditional.baseline),
        row('poll, nothing changed, answered 304', conditional.stats, conditional.baseline, conditional.writes),
      ],
    ),
    '',
    `nothing changed: ${unchanged.shortcut}/${polls} polls skipped the diff (bodies equal to the last diffed ones). Per poll ` +
      `${median(unchanged.writes.map((w) => w.pollRuns))} poll_runs row + ${median(unchanged.writes.map((w) => w.changes - w.pollRuns))} ` +
      `other row changes (the poll lease, acquired and released); archive tables (incidents, services, notes, versions, events, ` +
      `last_seen_ms) changed in ${archiveWrites} of ${polls}.`,
    `one incident changed: every poll made exactly one incident.updated event, for the incident edited.`,
    `304: ${conditional.notModified}/${conditional.writes.length} polls got 304 on both endpoints (informative; no goal).`,
  ].join('\n');

  const goals: Goal[] = [
    ratioGoal('poll, nothing changed', unchanged.stats, baseline),
    ratioGoal('poll, one incident changed', changed.stats, baseline),
    { name: 'no archive writes when nothing changed', met: archiveWrites === 0, detail: `archive tables changed in ${archiveWrites} of ${polls} polls` },
  ];
  return { text, goals };
}

export function median(values: readonly number[]): number {
  return summarize(values).p50;
}

function ratioGoal(name: string, s: Summary, base: Summary): Goal {
  const r = s.p50 / base.p50;
  return {
    name: `${name}: p50 within ${RATIO_GOAL}x of bare fetch + parse`,
    met: r <= RATIO_GOAL,
    detail: `${ratioAgainst(r, RATIO_GOAL)} (${ms(s.p50)} vs ${ms(base.p50)} ms)`,
  };
}
