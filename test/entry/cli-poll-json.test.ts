/**
 * `statuswatch poll --json` speaks the API's dialect: the same answer as
 * `POST /api/admin/poll`, snake_case keys and ISO 8601 times, so one script reads both.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { runCli } from '../helpers/cli.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every key of the answer, with its path; the keys of `changes` (event types) and of an event's `data` (vendor fields) are values, not names. */
function keyPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => keyPaths(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const here = path ? `${path}.${key}` : key;
    return key === 'changes' || key === 'data' ? [here] : [here, ...keyPaths(inner, here)];
  });
}

describe('statuswatch poll --json', () => {
  let vendor: TestVendor;
  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 42, title: 'Search is slow' })]);
  });
  afterAll(() => vendor.close());

  it('prints what POST /api/admin/poll answers: snake_case keys and ISO times', async () => {
    const result = await runCli(['poll', '--json', '--database-path', join(tempDir(), 'archive.db'), '--status-url', vendor.url]);
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ ok: true, outcome: 'ok', unchanged: false });
    const camel = keyPaths(answer).filter((path) => /[A-Z]/.test(path.split('.').at(-1)!));
    expect(camel).toEqual([]);
    expect(answer.run.started_at).toMatch(ISO_UTC);
    expect(answer.run.finished_at).toMatch(ISO_UTC);
    expect(answer.run.sources.map((s: { source: string }) => s.source)).toContain('v2/history');
    expect(answer.run.sources[0]).toHaveProperty('duration_ms');
    expect(answer.events).toHaveLength(1);
    expect(answer.events[0]).toMatchObject({ type: 'incident.created', incident_id: '42', backfill: true });
    expect(answer.events[0].occurred_at).toMatch(ISO_UTC);
    expect(answer.events[0].detected_at).toMatch(ISO_UTC);
  });

  it('answers a failed poll in the same shape, with exit 1', async () => {
    const result = await runCli(['poll', '--json', '--database-path', join(tempDir(), 'a.db'), '--status-url', 'http://127.0.0.1:9'], {
      POLL_TIMEOUT_MS: '2000',
    });
    expect(result.code).toBe(1);
    const answer = JSON.parse(result.stdout);
    // `ok`: the poll ran (as the API answers); `outcome` and the exit code say the feed was not read.
    expect(answer).toMatchObject({ ok: true, outcome: 'failed', events: [] });
    expect(answer.run.sources.every((s: { error?: string }) => typeof s.error === 'string')).toBe(true);
    expect(keyPaths(answer).filter((path) => /[A-Z]/.test(path.split('.').at(-1)!))).toEqual([]);
  });
});
