/**
 * The feed client's read of a body inside workerd, over real HTTP to the simulated vendor: a body
 * sent in chunks without a declared length is read whole, and refused once past the cap. Workers'
 * fetch bodies are byte streams read into one growing buffer, not chunk by chunk.
 */
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { FeedFetchError } from '../../src/core/errors.ts';
import { FEED_PATHS } from '../../src/app/poller.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import type {} from './provided-context.ts';

const simUrl = inject('simUrl');

async function control(method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(simUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}

const clientOf = (maxBytes: number) =>
  createFetchFeedClient({ baseUrl: simUrl, timeoutMs: 5000, maxBytes, userAgent: 'test', clock: { now: () => Date.now() } });

/** The history body as the vendor serves it without a fault: its text and its size in bytes. */
async function plainHistory(): Promise<{ text: string; bytes: number }> {
  const res = await fetch(simUrl + FEED_PATHS['v2/history']);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { text: new TextDecoder().decode(bytes), bytes: bytes.byteLength };
}

/** The next read of the history comes in the simulated vendor's slow chunks, without a Content-Length. */
const trickleNextHistory = () => control('POST', '/_sim/faults', { target: 'v2/history', kind: 'slow', delayMs: 50, times: 1 });

describe('the feed client in workerd', () => {
  beforeEach(async () => {
    await control('DELETE', '/_sim/faults');
    // More than the first buffer of a body without a length, so the read grows it on the way.
    await control(
      'PUT',
      '/_sim/incidents',
      Array.from({ length: 250 }, (_, i) => rawIncident({ id: i + 1, title: `Incident ${i + 1}: é and more words to fill the feed` })),
    );
  });

  it('reads a body sent in chunks without a declared length whole, up to exactly the cap', async () => {
    const plain = await plainHistory();
    expect(plain.bytes).toBeGreaterThan(100_000);
    await trickleNextHistory();
    const response = await clientOf(plain.bytes).get(FEED_PATHS['v2/history']);
    expect(response.body).toBe(plain.text);
    expect(response.bytes).toBe(plain.bytes);
  });

  it('refuses a body sent in chunks without a declared length one byte past the cap', async () => {
    const plain = await plainHistory();
    await trickleNextHistory();
    const failure = await clientOf(plain.bytes - 1)
      .get(FEED_PATHS['v2/history'])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FeedFetchError);
    expect((failure as FeedFetchError).message).toBe(`body exceeds the ${plain.bytes - 1}-byte limit`);
  });
});
