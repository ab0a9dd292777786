/**
 * The extra check over the recorded real Statuspage responses in ../shared/fixtures/real/statuspage
 * (not ours to commit): every body parses without a skipped entry, and replaying each series of
 * summaries in capture order makes one created event per incident and resolves nothing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planPoll, type ArchivedIncident } from '../src/core/diff.ts';
import { componentDirectory, observedIncidents } from '../src/core/statuspage/mapping.ts';
import { parseIncidents, parseMaintenances, parseSummary } from '../src/core/statuspage/schema.ts';

const REAL_DIR = resolve(import.meta.dirname, '../../shared/fixtures/real/statuspage');
const present = existsSync(REAL_DIR);
const walk = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : f.endsWith('.json') ? [join(dir, f)] : []));
const files = present ? walk(REAL_DIR) : [];
const NOW = Date.UTC(2026, 10, 1);

/** Which endpoint a body answers, by its keys: status.json, components.json and single incidents are not read. */
function parseAny(text: string) {
  const keys = Object.keys(JSON.parse(text) as object);
  if (keys.includes('components') && keys.includes('incidents')) return parseSummary(text);
  if (keys.includes('incidents')) return parseIncidents(text);
  if (keys.includes('scheduled_maintenances')) return parseMaintenances(text);
  return null;
}

describe.skipIf(!present)('real Statuspage captures', () => {
  it.each(files.map((f) => [relative(REAL_DIR, f), f]))('%s parses without skipping an entry', (_name, file) => {
    const parsed = parseAny(readFileSync(file, 'utf8'));
    if (!parsed) return;
    for (const list of Object.values(parsed)) if (list && typeof list === 'object' && 'skipped' in list) expect(list.skipped).toBe(0);
  });

  const seriesDir = join(REAL_DIR, 'series');
  const series = present && existsSync(seriesDir) ? readdirSync(seriesDir).sort() : [];
  it.each(series)('series %s replays with one created event per incident and nothing resolved', (name) => {
    const archive = new Map<string, ArchivedIncident>();
    const created = new Map<string, number>();
    for (const file of readdirSync(join(seriesDir, name))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const summary = parseSummary(readFileSync(join(seriesDir, name, file), 'utf8'));
      const observed = observedIncidents(name, { summary }, componentDirectory(summary.components.items));
      const plan = planPoll({ observed, archived: archive, now: NOW, backfill: false });
      for (const w of plan.writes) archive.set(w.incident.id, { ...w.incident, revision: w.revision, resolvedAt: w.resolvedAt });
      for (const e of plan.events) {
        if (e.type === 'incident.created') created.set(e.incidentId, (created.get(e.incidentId) ?? 0) + 1);
        // Summary never shows a resolved incident, and every open status is our `active`.
        expect(e.type).not.toBe('incident.status_changed');
      }
    }
    expect(archive.size).toBeGreaterThan(0);
    expect([...created.values()].every((n) => n === 1)).toBe(true);
    expect(created.size).toBe(archive.size);
    for (const incident of archive.values()) expect(incident.resolvedAt).toBeNull();
  });

  it('keeps the Bitbucket tweet_id past 2^53 as text, and GitHub edits as updates with one id', () => {
    const bitbucket = walk(seriesDir).find((f) => f.includes('bitbucket') && f.includes('05__'));
    if (bitbucket) {
      const summary = parseSummary(readFileSync(bitbucket, 'utf8'));
      const tweets = summary.incidents.items.flatMap((i) => i.incident_updates.items.map((u) => u.tweet_id)).filter(Boolean);
      expect(tweets).toContain('1760717163785245000');
    }
    const github = files.find((f) => f.includes('github__incidents'));
    if (github) {
      const list = parseIncidents(readFileSync(github, 'utf8')).incidents.items;
      expect(list).toHaveLength(50);
      const mapped = observedIncidents('github', { incidents: list }, componentDirectory([]));
      expect(mapped.every((i) => i.status === 'resolved')).toBe(true);
    }
  });
});
