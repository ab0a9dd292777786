/** Node's own refusals, answered by answerClientErrors on a real Node server over loopback. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { answerClientErrors } from '../../src/adapters/node-http-server.ts';
import { rawRequest } from '../helpers/raw-http.ts';

describe('answerClientErrors', () => {
  let server: Server;
  let url: string;
  const logs: string[] = [];

  beforeAll(async () => {
    // Timeouts far below Node's defaults (60 s for headers), checked often, so the test is quick.
    server = createServer({ headersTimeout: 300, requestTimeout: 400, connectionsCheckingInterval: 50 }, (_req, res) => res.end('ok'));
    answerClientErrors(server, createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(line) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers headers that never finish with 408 in the error shape', async () => {
    // No blank line: the headers never end, and the server stops waiting.
    const answer = await rawRequest(url, 'GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n');
    expect(answer.status).toBe(408);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['connection']).toBe('close');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
    expect(JSON.parse(answer.body)).toMatchObject({ ok: false, error: 'request_timeout' });
    expect(logs.map((l) => JSON.parse(l).level)).toEqual(['debug']);
  });
});
