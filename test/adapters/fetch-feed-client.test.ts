/** The feed client over real HTTP on loopback: what a read reports of the body it got. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';

describe('fetch feed client', () => {
  let server: Server | null = null;
  afterEach(async () => {
    const s = server;
    server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  });

  async function serve(body: Buffer): Promise<string> {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('counts the bytes as they came over the wire, not the text re-encoded', async () => {
    // "é" in two bytes, then a byte that is not UTF-8: decoded, it becomes U+FFFD, three bytes.
    const body = Buffer.concat([Buffer.from('["é', 'utf8'), Buffer.from([0xff]), Buffer.from('"]', 'utf8')]);
    const baseUrl = await serve(body);
    const client = createFetchFeedClient({ baseUrl, timeoutMs: 2000, maxBytes: 1000, userAgent: 'test', clock: { now: () => Date.now() } });
    const response = await client.get('/feed');
    expect(response).toMatchObject({ status: 200, body: '["é\uFFFD"]', bytes: body.byteLength, notModified: false });
    expect(body.byteLength).toBe(7);
  });
});
