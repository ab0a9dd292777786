/**
 * What a hostile or clumsy client gets from the real Node entry over loopback: requests Node itself
 * refuses answer in the API's error shape, and a client's fault never puts an error or a stack in
 * the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { abortedUpload, rawRequest, type RawAnswer } from '../helpers/raw-http.ts';

/** Nothing listens there: these tests never poll. */
const NO_VENDOR = 'http://127.0.0.1:9';

type LogLine = { level: string; msg: string; [field: string]: unknown };

describe('errors Node answers before the app', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(NO_VENDOR);
  });
  afterAll(() => service.close());

  const lines = (): LogLine[] => service.logs.map((l) => JSON.parse(l) as LogLine);
  const host = () => new URL(service.url).host;

  function expectErrorShape(answer: RawAnswer, status: number, error: string) {
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers.connection).toBe('close');
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ ok: false, error });
    expect(typeof body.detail).toBe('string');
    expect(body.detail.length).toBeGreaterThan(0);
  }

  function expectQuietLog(since: number) {
    const after = lines().slice(since);
    expect(after.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    expect(after.filter((l) => /\n\s+at /.test(JSON.stringify(l)))).toEqual([]);
  }

  it('answers 20 KB of headers with 431 in the error shape', async () => {
    const since = service.logs.length;
    const answer = await rawRequest(service.url, `GET /api/incidents HTTP/1.1\r\nHost: ${host()}\r\nX-Filler: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expectErrorShape(answer, 431, 'request_header_fields_too_large');
    expectQuietLog(since);
  });

  it('answers a malformed request line with 400 in the error shape', async () => {
    const since = service.logs.length;
    const answer = await rawRequest(service.url, 'HELLO THERE\r\n\r\n');
    expectErrorShape(answer, 400, 'invalid_request');
    const header = await rawRequest(service.url, `GET / HTTP/1.1\r\nHost: ${host()}\r\nNo colon here\r\n\r\n`);
    expectErrorShape(header, 400, 'invalid_request');
    expectQuietLog(since);
  });

  it('answers a Host header that is not a host with 400 in the error shape', async () => {
    const since = service.logs.length;
    const answer = await rawRequest(service.url, 'GET /api/incidents HTTP/1.1\r\nHost: not a host\r\nConnection: close\r\n\r\n');
    expectErrorShape(answer, 400, 'invalid_request');
    expectQuietLog(since);
  });

  it('keeps serving after all of that', async () => {
    expect((await service.get('/healthz')).status).toBe(200);
  });
});

describe('a client that leaves mid-upload', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(NO_VENDOR);
  });
  afterAll(() => service.close());

  const lines = (): LogLine[] => service.logs.map((l) => JSON.parse(l) as LogLine);

  /** Waits until the service has logged something about the request, or the deadline passes. */
  async function settle(since: number, deadlineMs = 5_000) {
    const until = Date.now() + deadlineMs;
    while (
      Date.now() < until &&
      !lines()
        .slice(since)
        .some((l) => /went away|request failed/.test(l.msg))
    ) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return lines().slice(since);
  }

  for (const path of ['/subscribe', '/admin/sign-in']) {
    it(`is dropped with one short line below warn, no error and no stack (POST ${path})`, async () => {
      const since = service.logs.length;
      const { host } = new URL(service.url);
      // Chunked: the body limit reads the stream, so the read is under way when the client leaves.
      const head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${service.url}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`;
      await abortedUpload(service.url, `${head}1000\r\nemail=${'a'.repeat(2000)}`, 0);
      const logged = await settle(since);
      expect(logged.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
      expect(logged.filter((l) => /\n\s+at /.test(JSON.stringify(l)))).toEqual([]);
      const gone = logged.filter((l) => /went away/.test(l.msg));
      expect(gone).toHaveLength(1);
      expect(['debug', 'info']).toContain(gone[0]!.level);
      expect((await service.get('/healthz')).status).toBe(200);
    });
  }

  it('is not read as an empty form: aborted sign-ins count as no wrong token', async () => {
    const since = service.logs.length;
    const { host } = new URL(service.url);
    // Content-Length within the form limit: the handler itself reads the body when the client leaves.
    const head = `POST /admin/sign-in HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${service.url}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`;
    // More than the ten wrong tokens an address may try in ten minutes.
    for (let i = 0; i < 12; i++) {
      const before = service.logs.length;
      await abortedUpload(service.url, `${head}token=${'x'.repeat(100)}`, 0);
      await settle(before, 1_000);
    }
    const logged = lines().slice(since);
    expect(logged.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    expect(logged.filter((l) => /went away/.test(l.msg))).toHaveLength(12);
    // The address is not locked out: the right token still signs in.
    const signIn = await fetch(`${service.url}/admin/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: service.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${ADMIN_TOKEN}`,
    });
    expect(signIn.status).toBe(303);
  });
});
