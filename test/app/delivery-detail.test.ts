/**
 * One delivery as every face shows it, over a real SQLite archive: its newest attempts, at most
 * DELIVERY_ATTEMPTS_LISTED_MAX however many replays added, while its count says how many there
 * were; an id that is not a whole number from 1 names no delivery. The admin API and the admin
 * page of the delivery list the same attempts and refuse the same ids.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DELIVERY_ATTEMPTS_LISTED_MAX, deliveryDetail } from '../../src/app/delivery-detail.ts';
import { attemptOf, pollNews, storedSubscription } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { appFaces } from '../helpers/app-faces.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const T0 = Date.UTC(2026, 9, 1, 15, 0, 0);
const LEASE_MS = 60_000;
const TRIED = DELIVERY_ATTEMPTS_LISTED_MAX + 3;

describe('one delivery as every face shows it', () => {
  let archive: TempArchive;
  let id: number;
  beforeEach(async () => {
    archive = openTempArchive();
    const { store } = archive;
    await store.createSubscription(storedSubscription('sub_hook', {}, T0 - 1000));
    await pollNews(store, [rawIncident({ id: 5001, title: 'Messages fail to send' })], T0);
    // A receiver that keeps failing: every try is one more attempt.
    for (let n = 0; n < TRIED; n++) {
      const [claimed] = await store.claimDueDeliveries('a', T0 + n * 10_000, LEASE_MS, 1);
      id = claimed!.delivery.id;
      expect(await store.recordAttempts('a', [attemptOf(id, T0 + n * 10_000 + 1, { kind: 'retry', at: T0 + (n + 1) * 10_000, error: `try ${n}` })])).toEqual([
        true,
      ]);
    }
  });
  afterEach(() => archive.remove());

  it('lists the newest attempts, oldest of them first, and counts them all', async () => {
    const found = await deliveryDetail(archive, String(id));
    expect(found?.delivery.attempts).toBe(TRIED);
    expect(found?.attempts.map((a) => a.attemptedAt)).toEqual(
      Array.from({ length: DELIVERY_ATTEMPTS_LISTED_MAX }, (_, i) => T0 + (TRIED - DELIVERY_ATTEMPTS_LISTED_MAX + i) * 10_000 + 1),
    );
    for (const raw of ['0', '-1', '1.5', 'abc', '', String(id + 1)]) expect(await deliveryDetail(archive, raw), raw).toBeNull();
  });

  it('the admin API and the admin page list the same attempts and refuse the same ids', async () => {
    const faces = await appFaces(archive);
    const api = await faces.api<{ delivery: { attempts: number; attempt_log: unknown[] } }>(`/api/deliveries/${id}`);
    expect(api.body.delivery.attempts).toBe(TRIED);
    expect(api.body.delivery.attempt_log).toHaveLength(DELIVERY_ATTEMPTS_LISTED_MAX);
    const page = await faces.admin.get(`/admin/deliveries/${id}`);
    expect(page.html).toContain(`${TRIED} attempts, the newest ${DELIVERY_ATTEMPTS_LISTED_MAX} shown`);
    for (const raw of ['0', '1.5', 'abc', String(id + 1)]) {
      expect((await faces.api(`/api/deliveries/${raw}`)).body, raw).toMatchObject({ ok: false, error: 'delivery_not_found' });
      expect((await faces.admin.get(`/admin/deliveries/${raw}`)).status, raw).toBe(404);
    }
  });
});
