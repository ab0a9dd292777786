/**
 * Source pages are read on Node through the webhook targets' connect-time guard: a public-looking
 * name that resolves to a loopback address is refused after DNS (the URL alone passes), unless
 * WEBHOOK_ALLOW_PRIVATE; real HTTP to the simulated Statuspage page on loopback.
 */
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createGuardedFetch } from '../../src/adapters/guarded-fetch.ts';
import { parseSummary } from '../../src/core/statuspage/schema.ts';
import { checkWebhookUrl } from '../../src/core/webhook-target.ts';
import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';

/** A resolver under which status.example.com is loopback: what a hostile or rebinding DNS answers. */
const rebinding: LookupFunction = (_hostname, options, callback) => {
  queueMicrotask(() => (options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)));
};

describe('the guarded fetch of source pages', () => {
  let page: RunningSimulatedStatuspage;
  beforeAll(async () => {
    page = await startSimulatedStatuspage();
  });
  afterAll(() => page?.close());

  it('refuses a name that resolves to loopback, though its URL passes the check', async () => {
    const url = `https://status.example.com:${page.port}`;
    expect(checkWebhookUrl(url, { allowPrivate: false }).ok).toBe(true);
    const guarded = createGuardedFetch({ allowPrivate: false, connectTimeoutMs: 2000, lookup: rebinding });
    const client = createFetchFeedClient({
      baseUrl: url,
      timeoutMs: 2000,
      maxBytes: 1_000_000,
      userAgent: 'test',
      clock: { now: () => Date.now() },
      fetch: guarded,
    });
    await expect(client.get('/api/v2/summary.json')).rejects.toThrow(/target refused: status\.example\.com resolves to 127\.0\.0\.1, which is loopback/);
    await guarded.close();
    expect(page.page.requests()).toEqual([]);
  });

  it('reads the page when WEBHOOK_ALLOW_PRIVATE lets loopback through', async () => {
    const guarded = createGuardedFetch({ allowPrivate: true, connectTimeoutMs: 2000, lookup: rebinding });
    const client = createFetchFeedClient({
      baseUrl: `http://status.example.com:${page.port}`,
      timeoutMs: 2000,
      maxBytes: 1_000_000,
      userAgent: 'test',
      clock: { now: () => Date.now() },
      fetch: guarded,
    });
    const answer = await client.get('/api/v2/summary.json');
    expect(answer.status).toBe(200);
    expect(parseSummary(answer.body).page.name).toBe('Acme Cloud');
    await guarded.close();
  });
});
