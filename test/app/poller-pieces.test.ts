/**
 * A poll written in pieces records, with each piece, how much of it is still to be written: a
 * process killed between two pieces leaves a run that says so, never "ok, nothing pending".
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { APPLY_PIECE_INCIDENTS, createPoller } from '../../src/app/poller.ts';
import type { ApplyPollInput, Clock, Store } from '../../src/core/ports.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const INCIDENTS = 25;

describe('a poll written in pieces', () => {
  let vendor: TestVendor;
  let archive: TempArchive;
  beforeAll(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
  });
  afterAll(async () => {
    archive.remove();
    await vendor.close();
  });

  it('records with each piece the incidents still to be written, reaching none only with the last', async () => {
    await vendor.setIncidents(
      Array.from({ length: INCIDENTS }, (_, i) =>
        rawIncident({
          id: 100 + i,
          title: `Incident ${i}`,
          status: 'resolved',
          date_created: '2026-10-01T05:00:00-07:00',
          date_updated: '2026-10-01T06:00:00-07:00',
        }),
      ),
    );
    // The real store, watched: what each piece's statement list records as the run's state.
    const recorded: (number | undefined)[] = [];
    const store: Store = {
      ...archive.store,
      applyPoll: (input: ApplyPollInput) => {
        recorded.push(input.run.pendingIncidents);
        return archive.store.applyPoll(input);
      },
    };
    const clock: Clock = { now: () => Date.UTC(2026, 10, 22, 10) };
    const poller = createPoller({
      store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
      instanceId: 'pieces',
      newId: randomUUID,
      maxIncidentWrites: 1000,
    });
    const result = await poller.pollOnce();
    expect(result.status).toBe('ok');

    const pieces = Math.ceil(INCIDENTS / APPLY_PIECE_INCIDENTS);
    const expected = Array.from({ length: pieces }, (_, k) => {
      const left = INCIDENTS - (k + 1) * APPLY_PIECE_INCIDENTS;
      return left > 0 ? left : undefined;
    });
    expect(recorded).toEqual(expected);
  });
});
