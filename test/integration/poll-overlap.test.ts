/**
 * One poll at a time inside one serve process: the poll at start, the scheduled ones and the admin's
 * "poll now" share it. (The lease keeps other processes out, but lets its own holder in again.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestVendor } from '../helpers/service.ts';

describe('polls of one serve process', () => {
  let vendor: TestVendor;
  beforeAll(async () => {
    vendor = await startTestVendor();
  });
  afterAll(() => vendor.close());

  it('never overlap: while the poll at start waits on a slow vendor, the scheduled ones do not start another', async () => {
    // The first history read takes 2.5 s; polls are scheduled every second meanwhile.
    await vendor.fault({ target: 'v2/history', kind: 'slow', delayMs: 2500, times: 1 });
    const service = await startTestService(vendor.url, { env: { POLL_ON_START: 'true', POLL_SCHEDULE: '* * * * * *' } });
    try {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const currentReads = (await vendor.requests()).filter((r) => r.path.startsWith('/api/v2.0.0/current'));
      // The poll at start read `current` once and is still waiting for history: no second poll.
      expect(currentReads).toHaveLength(1);
    } finally {
      await service.close();
      await vendor.clearFaults();
    }
  });

  it('a "poll now" during the poll at start waits for it and answers its result: one poll, every incident, no failed run', async () => {
    const incidents = Array.from({ length: 116 }, (_, i) => rawIncident({ id: 600 + i, title: `Incident ${600 + i}` }));
    await vendor.setIncidents(incidents);
    // The poll at start spends 1.5 s reading history, so the admin's poll arrives while it runs. The
    // read timeout is far above that: the harness's 2 s left a loaded machine half a second, and the
    // history read timed out (a partial poll), which is not this story.
    await vendor.fault({ target: 'v2/history', kind: 'slow', delayMs: 1500, times: 2 });
    const requestsBefore = (await vendor.requests()).length;
    const service = await startTestService(vendor.url, { env: { POLL_ON_START: 'true', POLL_TIMEOUT_MS: '30000' } });
    try {
      const answer = await service.admin('POST', '/api/admin/poll');
      expect(answer.status).toBe(200);
      expect(answer.body.outcome).toBe('ok');
      expect(new Set(answer.body.events.map((e: { incident_id: string }) => e.incident_id)).size).toBe(116);

      const polls = (await service.admin('GET', '/api/admin/polls')).body.polls as { id: string; outcome: string }[];
      expect(polls.map((p) => p.outcome)).toEqual(['ok']);
      expect(polls[0]!.id).toBe(answer.body.run.id);
      const currentReads = (await vendor.requests()).slice(requestsBefore).filter((r) => r.path.startsWith('/api/v2.0.0/current'));
      expect(currentReads).toHaveLength(1);
    } finally {
      await service.close();
      await vendor.clearFaults();
    }
  });
});
