/**
 * What the archive knows of the vendor now, over a real SQLite archive: never read, known while
 * the last good read is younger than STALE_AFTER_MS, stale from then on; the dashboard and the
 * vendor mirror say "unknown" from the same read at the same moment.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { feedKnowledge } from '../../src/app/feed-knowledge.ts';
import { STALE_AFTER_MS } from '../../src/core/knowledge.ts';
import { pollRun } from '../contracts/archive-polls.ts';
import { appFaces } from '../helpers/app-faces.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const READ_AT = Date.UTC(2026, 10, 1, 12);

describe('what the archive knows of the vendor now', () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  it('is never-read before a good read, known until STALE_AFTER_MS after it, and stale from then', async () => {
    expect((await feedKnowledge(archive, READ_AT)).knowledge).toEqual({ kind: 'never-read' });
    await archive.store.recordPollRun(pollRun(READ_AT, 'ok'), []);
    // A failed poll later is no read: what is known still dates from the good one, and the reads since fail.
    await archive.store.recordPollRun(pollRun(READ_AT + 60_000, 'failed'), []);
    const known = await feedKnowledge(archive, READ_AT + STALE_AFTER_MS - 1);
    expect(known.knowledge).toEqual({ kind: 'known', lastSuccessAt: READ_AT, readsFailing: true });
    expect(known.health).toMatchObject({ lastSuccessAt: READ_AT, consecutiveFailures: 1 });
    expect((await feedKnowledge(archive, READ_AT + STALE_AFTER_MS)).knowledge).toEqual({ kind: 'stale', since: READ_AT });
  });

  it('the dashboard and the vendor mirror say unknown at the same moment', async () => {
    await archive.store.recordPollRun(pollRun(READ_AT, 'ok'), []);
    // A fresh app at each moment: what one says is not an answer a cache kept from before.
    const facesAt = async (nowMs: number) => {
      const faces = await appFaces(archive, { clock: { now: () => nowMs } });
      return {
        mirror: (await faces.api<{ status: string }>('/api/v2.0.0/current')).body.status,
        dashboardUnknown: (await faces.admin.get('/')).html.includes('Status unknown'),
      };
    };
    expect(await facesAt(READ_AT + STALE_AFTER_MS - 1)).toEqual({ mirror: 'ok', dashboardUnknown: false });
    expect(await facesAt(READ_AT + STALE_AFTER_MS)).toEqual({ mirror: 'unknown', dashboardUnknown: true });
  });
});
