/**
 * One poll at a time inside one serve process: the poll at start and the scheduled ones share it.
 * (The lease keeps other processes out, but lets its own holder in again.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
