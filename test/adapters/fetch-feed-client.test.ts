/** The feed client over real HTTP on loopback: what a read reports of the body it got, and its bound. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { FeedFetchError } from '../../src/core/errors.ts';

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

  /** Sends `body` in 4 KB chunks without a Content-Length (chunked); with `endless`, more after it, without end. */
  async function stream(body: Buffer, endless = false): Promise<string> {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let at = 0;
      const next = () => {
        if (res.destroyed) return;
        if (at >= body.length && !endless) return void res.end();
        res.write(at < body.length ? body.subarray(at, at + 4096) : Buffer.alloc(4096, 0x20), () => setImmediate(next));
        at += 4096;
      };
      next();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const clientOf = (baseUrl: string, maxBytes: number) =>
    createFetchFeedClient({ baseUrl, timeoutMs: 5000, maxBytes, userAgent: 'test', clock: { now: () => Date.now() } });

  it('reads a body of many chunks without a declared length whole, up to exactly the cap', async () => {
    // Larger than the first buffer a body without a length gets, so it grows on the way.
    const body = Buffer.from(JSON.stringify({ incidents: Array.from({ length: 3000 }, (_, i) => ({ id: i, title: `Incident ${i} é` })) }));
    expect(body.byteLength).toBeGreaterThan(100_000);
    const url = await stream(body);
    const response = await clientOf(url, body.byteLength).get('/feed');
    expect(response.body).toBe(body.toString('utf8'));
    expect(response.bytes).toBe(body.byteLength);
  });

  it('refuses a body without a declared length one byte past the cap', async () => {
    const body = Buffer.alloc(100_001, 0x20);
    const url = await stream(body);
    const failure = await clientOf(url, 100_000)
      .get('/feed')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FeedFetchError);
    expect((failure as FeedFetchError).message).toBe('body exceeds the 100000-byte limit');
  });

  it('stops reading a body that never ends once past the cap', async () => {
    const url = await stream(Buffer.alloc(0), true);
    await expect(clientOf(url, 200_000).get('/feed')).rejects.toThrow('body exceeds the 200000-byte limit');
  });

  /** Answers with the headers and `sent` of the body, then nothing more until the client leaves. */
  async function stall(sent: string): Promise<string> {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(sent.length + 100) });
      if (sent) res.write(sent);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('gives up on a body that stops coming once the timeout is over, whole exchange counted', async () => {
    const url = await stall('[{"id":1');
    const client = createFetchFeedClient({ baseUrl: url, timeoutMs: 300, maxBytes: 1000, userAgent: 'test', clock: { now: () => Date.now() } });
    const started = Date.now();
    const failure = await client.get('/feed').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FeedFetchError);
    expect(failure).toMatchObject({ kind: 'timeout', message: `GET ${url}/feed: no complete answer within 300 ms` });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('gives up on a server that never answers once the timeout is over', async () => {
    server = createServer(() => {});
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = createFetchFeedClient({ baseUrl: url, timeoutMs: 300, maxBytes: 1000, userAgent: 'test', clock: { now: () => Date.now() } });
    await expect(client.get('/feed')).rejects.toThrow(`GET ${url}/feed: no complete answer within 300 ms`);
  });
});
