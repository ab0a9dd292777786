/**
 * The admin bearer API under a guessing attack, through the service's app over a real database: wrong
 * tokens from a thousand addresses get 429s in the one error shape, the throttle's rows stay
 * bounded in the store, and the right token gets in after the short wait.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';

describe('admin API guess throttle', () => {
  let service: TestApp | null = null;
  // Frozen time: the guesses all land in one instant, so the ceilings are exact.
  let nowMs = Date.UTC(2026, 10, 23, 6);
  const clock = { now: () => nowMs };

  afterEach(async () => {
    await service?.close();
  });

  const call = (token: string, address: string) =>
    service!.fetch(`${service!.url}/api/subscriptions`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `203.0.113.9, ${address}` } });

  it('answers a thousand wrong tokens from a thousand addresses with 429s, and keeps its state bounded', async () => {
    service = await startTestApp(NO_FEED_URL, { clock, env: { TRUST_PROXY: 'true' } });
    const statuses: number[] = [];
    const refusals: Response[] = [];
    // Eight in flight, as an attacker would: concurrent guesses must not slip past a full log.
    for (let i = 0; i < 1000; i += 8) {
      const batch = await Promise.all(Array.from({ length: 8 }, (_, j) => call(`wrong-token-${i + j}`, `2001:db8:${(i + j).toString(16)}::1`)));
      for (const res of batch) {
        statuses.push(res.status);
        if (res.status === 429) refusals.push(res);
      }
    }
    // At most ten wrong guesses a second across all addresses are even checked.
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(refusals).toHaveLength(990);
    expect(refusals[0]!.headers.get('retry-after')).toBe('1');
    expect(await refusals[0]!.json()).toEqual({ ok: false, error: 'too_many_guesses', detail: 'too many wrong admin tokens; try again in 1 s' });

    // The admin, from an address never seen: delayed by the second, then let in.
    expect((await call(ADMIN_TOKEN, '198.51.100.7')).status).toBe(429);
    nowMs += 1000;
    const ok = await call(ADMIN_TOKEN, '198.51.100.7');
    expect(ok.status).toBe(200);

    // One row per address whose wrong guess was checked, plus the global one: not one per guess
    // (the right tokens wrote none). Counted by pruning them all, as retention would in time.
    expect(await service.store.pruneRateLimits(Number.MAX_SAFE_INTEGER, 100_000)).toBeLessThanOrEqual(11);
  });

  it('slows one address down without a lockout: the right token works after the wait it was told', async () => {
    service = await startTestApp(NO_FEED_URL, { clock });
    for (let i = 0; i < 5; i++) expect((await call(`wrong-${i}`, 'ignored')).status).toBe(401);
    const refused = await call(ADMIN_TOKEN, 'ignored');
    expect(refused.status).toBe(429);
    nowMs += Number(refused.headers.get('retry-after')) * 1000;
    expect((await call(ADMIN_TOKEN, 'ignored')).status).toBe(200);
    // Right tokens cost nothing: a busy script is never throttled.
    for (let i = 0; i < 20; i++) expect((await call(ADMIN_TOKEN, 'ignored')).status).toBe(200);
  });
});
