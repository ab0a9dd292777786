/**
 * MCP_AUTH=token: bearer tokens the admin creates and revokes. The real Node service,
 * the SDK's client over HTTP, and the archive file itself, which must never hold a token.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOKENS_MAX } from '../../src/http/routes/mcp-tokens.ts';
import { ADMIN_TOKEN, startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { connectMcp, mcpArchive, rawMcpCall } from './mcp-helpers.ts';

describe('MCP_AUTH=token', () => {
  let vendor: TestVendor;
  let service: TestService;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents(mcpArchive());
    service = await startTestService(vendor.url, { env: { MCP_AUTH: 'token', MCP_RATE_LIMIT_PER_MINUTE: '3' } });
    await service.poll();
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('refuses a request without a token, or with one nobody made, with a Bearer challenge', async () => {
    for (const headers of [{}, { authorization: 'Bearer swmcp_made-up' }, { authorization: `Bearer ${ADMIN_TOKEN}` }] as Record<string, string>[]) {
      const res = await rawMcpCall(service.url, 'tools/list', headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="statuswatch mcp", error="invalid_token"/);
      expect(await res.json()).toMatchObject({ error: 'invalid_token' });
    }
  });

  it('lets an admin-made token in, lists it without the token, keeps only its hash, and shuts it out once revoked', async () => {
    const made = await service.admin('POST', '/api/admin/mcp-tokens', { label: 'ops assistant' });
    expect(made.status).toBe(201);
    const secret: string = made.body.secret;
    expect(secret).toMatch(/^swmcp_[\w-]{40,}$/);

    const mcp = await connectMcp(service.url, secret);
    expect((await mcp.call('current_status')).structuredContent.state).toBe('incident');
    await mcp.close();

    const listed = await service.admin('GET', '/api/admin/mcp-tokens');
    expect(listed.body.tokens).toEqual([{ id: made.body.token.id, label: 'ops assistant', created_at: expect.any(String) }]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    // Nowhere in the archive file (nor its write-ahead log) is the token itself.
    for (const file of ['archive.db', 'archive.db-wal']) {
      const bytes = (() => {
        try {
          return readFileSync(join(service.dir, file));
        } catch {
          return Buffer.alloc(0);
        }
      })();
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
    }

    expect((await service.admin('DELETE', `/api/admin/mcp-tokens/${made.body.token.id}`)).status).toBe(200);
    expect((await rawMcpCall(service.url, 'tools/list', { authorization: `Bearer ${secret}` })).status).toBe(401);
    expect((await service.admin('DELETE', `/api/admin/mcp-tokens/${made.body.token.id}`)).status).toBe(404);
  });

  it('limits each token on its own', async () => {
    const a = (await service.admin('POST', '/api/admin/mcp-tokens', { label: 'a' })).body;
    const b = (await service.admin('POST', '/api/admin/mcp-tokens', { label: 'b' })).body;
    const call = (token: string) => rawMcpCall(service.url, 'tools/list', { authorization: `Bearer ${token}` });
    for (let i = 0; i < 3; i++) expect((await call(a.secret)).status).toBe(200);
    expect((await call(a.secret)).status).toBe(429);
    expect((await call(b.secret)).status).toBe(200);
    await service.admin('DELETE', `/api/admin/mcp-tokens/${a.token.id}`);
    await service.admin('DELETE', `/api/admin/mcp-tokens/${b.token.id}`);
  });

  it('is managed by the admin only, with a clear 400 for a bad label, and never holds more than MCP_TOKENS_MAX', async () => {
    for (const [method, path] of [
      ['POST', '/api/admin/mcp-tokens'],
      ['GET', '/api/admin/mcp-tokens'],
      ['DELETE', '/api/admin/mcp-tokens/mcpt_x'],
    ] as const) {
      expect((await fetch(service.url + path, { method })).status).toBe(401);
    }
    expect(await service.admin('POST', '/api/admin/mcp-tokens', { label: '' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', detail: 'label: must not be empty' },
    });
    expect(await service.admin('POST', '/api/admin/mcp-tokens', {})).toMatchObject({ status: 400, body: { error: 'invalid_request' } });

    const existing = (await service.admin('GET', '/api/admin/mcp-tokens')).body.tokens.length;
    for (let i = existing; i < MCP_TOKENS_MAX; i++) expect((await service.admin('POST', '/api/admin/mcp-tokens', { label: `t${i}` })).status).toBe(201);
    expect(await service.admin('POST', '/api/admin/mcp-tokens', { label: 'one too many' })).toMatchObject({ status: 409, body: { error: 'too_many_tokens' } });
    expect((await service.admin('GET', '/api/admin/mcp-tokens')).body.tokens).toHaveLength(MCP_TOKENS_MAX);
  });
});

describe('MCP_AUTH=token under guessing', () => {
  let vendor: TestVendor;
  let service: TestService;
  beforeAll(async () => {
    vendor = await startTestVendor();
    // Behind a proxy: each request names its client in X-Forwarded-For, so one test plays many addresses.
    service = await startTestService(vendor.url, { env: { MCP_AUTH: 'token', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });
  const call = (address: string, token?: string) =>
    rawMcpCall(service.url, 'tools/list', { 'x-forwarded-for': address, ...(token ? { authorization: `Bearer ${token}` } : {}) });

  it('makes an address that guesses wait, even with the right token then, and no other address', async () => {
    const secret = (await service.admin('POST', '/api/admin/mcp-tokens', { label: 'assistant' })).body.secret as string;
    const guesses = [];
    for (let i = 0; i < 7; i++) guesses.push((await call('198.51.100.9', `swmcp_guess-${i}`)).status);
    expect(guesses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(guesses.slice(5)).toContain(429);
    const waiting = await call('198.51.100.9', secret);
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Requests without any token guess nothing, and another address is not held back.
    expect((await call('198.51.100.10')).status).toBe(401);
    expect((await call('192.0.2.44', secret)).status).toBe(200);
  });

  it('logs the refusals of this minute, a flood from many addresses included, in a line or two, not one each', async () => {
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => call(`203.0.113.${i % 200}`, `swmcp_flood-${i}`).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([401]));
    // With the guesses above: over 200 refusals, one line so far, the rest counted for the next.
    const refused = service.logs.filter((line) => line.includes('mcp request refused'));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeLessThanOrEqual(2);
    expect(refused[0]).toContain('"reason_code":"invalid_token"');
  });
});

describe('MCP_AUTH=token settings', () => {
  it('MCP_AUTH=token needs ADMIN_TOKEN (or nobody could make a token); ema needs its settings and PUBLIC_URL', async () => {
    const { parseConfig } = await import('../../src/config.ts');
    expect(() => parseConfig({ MCP_AUTH: 'token' })).toThrow(/ADMIN_TOKEN: MCP_AUTH=token needs ADMIN_TOKEN/);
    expect(() => parseConfig({ MCP_AUTH: 'ema' })).toThrow(/EMA_ISSUER: MCP_AUTH=ema needs EMA_ISSUER/);
    const ema = {
      MCP_AUTH: 'ema',
      EMA_ISSUER: 'https://idp.example.com',
      EMA_JWKS_URL: 'https://idp.example.com/jwks',
      EMA_CLIENT_ID: 'a',
      EMA_CLIENT_SECRET: '0123456789abcdef',
    };
    expect(() => parseConfig(ema)).toThrow(/PUBLIC_URL: MCP_AUTH=ema needs PUBLIC_URL/);
    expect(parseConfig({ ...ema, PUBLIC_URL: 'https://status.example.com' }).MCP_AUTH).toBe('ema');
    expect(() => parseConfig({ MCP_AUTH: 'sometimes' })).toThrow(/MCP_AUTH must be none, token or ema/);
  });
});
