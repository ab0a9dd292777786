/**
 * The fixture factory that the workers project's tests call from inside workerd: it starts real
 * parts on loopback, shows what they saw, closes them, bounds how many live at once, and refuses
 * bad requests in the one error shape.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LIVE_FIXTURES, startFixtureFactory, type FixtureFactory } from './fixture-factory.ts';

type Answer = { status: number; body: any };

describe('fixture factory', () => {
  let factory: FixtureFactory;
  beforeEach(async () => {
    factory = await startFixtureFactory();
  });
  afterEach(async () => {
    await factory.close();
  });

  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(factory.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const reachable = (url: string) =>
    fetch(url).then(
      () => true,
      () => false,
    );

  it('closes the connection after each answer: workerd would reuse one Node closed after 5 s idle, and fail', async () => {
    const res = await fetch(`${factory.url}/nope`);
    expect(res.headers.get('connection')).toBe('close');
    await res.body?.cancel();
  });

  it('starts a simulated vendor that serves the feed, and closes it on request', async () => {
    const started = await call('POST', '/vendors', { historyWindowDays: 100_000 });
    expect(started).toEqual({ status: 201, body: { ok: true, id: expect.any(String), url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) } });
    const feed = await fetch(`${started.body.url}/api/v2.0.0/current`);
    expect(feed.status).toBe(200);
    expect(await feed.json()).toMatchObject({ active_incidents: [] });

    expect(await call('DELETE', `/vendors/${started.body.id}`)).toEqual({ status: 200, body: { ok: true } });
    expect(await reachable(started.body.url)).toBe(false);
    expect(await call('DELETE', `/vendors/${started.body.id}`)).toEqual({
      status: 404,
      body: { ok: false, error: 'not_found', detail: `no vendors ${started.body.id}: never started, or closed` },
    });
  });

  it('shows what a webhook receiver got from a given count on, and answers as scripted', async () => {
    const { body: receiver } = await call('POST', '/receivers', {});
    expect((await call('POST', `/receivers/${receiver.id}/answers`, [{ status: 410, body: 'gone' }])).status).toBe(200);
    const first = await fetch(receiver.url, { method: 'POST', headers: { 'webhook-id': 'msg_1' }, body: '{"n":1}' });
    expect([first.status, await first.text()]).toEqual([410, 'gone']);
    expect((await fetch(receiver.url, { method: 'POST', body: '{"n":2}' })).status).toBe(200);

    const all = await call('GET', `/receivers/${receiver.id}/log?since=0`);
    expect(all.body.total).toBe(2);
    expect(all.body.items.map((r: { body: string }) => r.body)).toEqual(['{"n":1}', '{"n":2}']);
    expect(all.body.items[0].headers['webhook-id']).toBe('msg_1');
    expect((await call('GET', `/receivers/${receiver.id}/log?since=1`)).body.items.map((r: { body: string }) => r.body)).toEqual(['{"n":2}']);
    expect((await call('GET', `/receivers/${receiver.id}/log?since=2`)).body.items).toEqual([]);
  });

  it('stands in for Postmark, with the token it was given', async () => {
    const { body: api } = await call('POST', '/mail-apis', { token: 'a-token-for-this-test' });
    expect(api.token).toBe('a-token-for-this-test');
    const email = { From: 'a@example.test', To: 'b@example.test', Subject: 'Hello', TextBody: 'Hi', MessageStream: 'outbound' };
    const headers = { accept: 'application/json', 'content-type': 'application/json', 'x-postmark-server-token': api.token };
    expect((await fetch(`${api.url}/email`, { method: 'POST', headers, body: JSON.stringify(email) })).status).toBe(200);
    expect(
      (await fetch(`${api.url}/email`, { method: 'POST', headers: { ...headers, 'x-postmark-server-token': 'wrong' }, body: JSON.stringify(email) })).status,
    ).toBe(401);
    expect((await call('GET', `/mail-apis/${api.id}/log?since=0`)).body.items).toEqual([expect.objectContaining({ Subject: 'Hello', To: 'b@example.test' })]);
  });

  it(`keeps at most ${MAX_LIVE_FIXTURES} parts of a kind alive, and starts more once one is closed`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_LIVE_FIXTURES; i++) ids.push((await call('POST', '/receivers', {})).body.id);
    expect(await call('POST', '/receivers', {})).toEqual({
      status: 409,
      body: { ok: false, error: 'too_many_fixtures', detail: `at most ${MAX_LIVE_FIXTURES} receivers at once: close one first` },
    });
    // Another kind has its own count.
    expect((await call('POST', '/vendors', {})).status).toBe(201);
    await call('DELETE', `/receivers/${ids[0]}`);
    expect((await call('POST', '/receivers', {})).status).toBe(201);
  });

  it('refuses bad requests in the one error shape, starting nothing', async () => {
    for (const [path, body, detail] of [
      ['/vendors', { historyWindowDays: 'many' }, /historyWindowDays/],
      ['/vendors', { scenario: 'demo' }, /scenario/],
      ['/receivers', { answerDelayMs: 'slow' }, /answerDelayMs/],
      ['/mail-apis', { token: '' }, /token/],
    ] as const) {
      const answer = await call('POST', path, body);
      expect(answer.status, path).toBe(400);
      expect(answer.body, path).toMatchObject({ ok: false, error: 'invalid_request' });
      expect(answer.body.detail, path).toMatch(detail);
    }
    const notJson = await fetch(`${factory.url}/vendors`, { method: 'POST', body: '{' });
    expect([notJson.status, await notJson.json()]).toEqual([400, { ok: false, error: 'invalid_request', detail: 'body: expected JSON' }]);
    const { body: receiver } = await call('POST', '/receivers', {});
    expect((await call('GET', `/receivers/${receiver.id}/log?since=-1`)).body).toMatchObject({ ok: false, error: 'invalid_request' });
    expect((await call('POST', `/receivers/${receiver.id}/answers`, [{ status: 99 }])).status).toBe(400);
    expect(await call('GET', '/nope')).toEqual({ status: 404, body: { ok: false, error: 'not_found', detail: 'no route for GET /nope' } });
    const huge = await fetch(`${factory.url}/vendors`, { method: 'POST', body: 'x'.repeat(100_000) });
    expect([huge.status, (await huge.json()).error]).toEqual([413, 'payload_too_large']);
  });

  it('closes every part it started when it closes', async () => {
    const vendor = (await call('POST', '/vendors', {})).body.url as string;
    const receiver = (await call('POST', '/receivers', {})).body.url as string;
    expect(await reachable(vendor)).toBe(true);
    await factory.close();
    expect(await reachable(vendor)).toBe(false);
    expect(await reachable(receiver)).toBe(false);
    factory = await startFixtureFactory(); // for afterEach
  });
});
