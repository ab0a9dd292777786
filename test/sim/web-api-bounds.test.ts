/** Every table the simulated Web API keeps has a cap: what outside input can grow stops growing, and the newest stays. */
import { describe, expect, it } from 'vitest';
import { createCallLog, CALL_LOG_MAX } from '../../src/sim/web-api/call-log.ts';
import { CHANNELS_PER_WORKSPACE_MAX, EDITS_PER_MESSAGE_MAX, MESSAGES_PER_CHANNEL_MAX } from '../../src/sim/web-api/channels.ts';
import { WEB_API_FAULTS_MAX } from '../../src/sim/web-api/faults.ts';
import { createRateLimits, RATE_LIMIT_RULES_MAX } from '../../src/sim/web-api/rate-limits.ts';
import { defaultSettings } from '../../src/sim/web-api/settings.ts';
import { MISUSE_EVENTS_MAX } from '../../src/sim/web-api/token-misuse.ts';
import { AUTH_CODES_MAX, createTokenBook, TOKENS_PER_WORKSPACE_MAX } from '../../src/sim/web-api/tokens.ts';
import { createWorkspaceBook, WORKSPACES_MAX } from '../../src/sim/web-api/workspaces.ts';
import { startWebApi, T0 } from './web-api-helpers.ts';

describe('bounds over HTTP', () => {
  it('misuse events keep the newest 100 while the counters keep counting', async () => {
    const api = await startWebApi({ settings: { accessTokenLifetimeSeconds: 1 } });
    await api.setClock(T0);
    const ws = await api.workspace();
    const pair = await api.exchange(ws.token);
    await api.setClock(T0 + 1000);
    for (let i = 0; i < MISUSE_EVENTS_MAX + 20; i += 1) await api.form('auth.test', {}, pair.body.access_token as string);
    const misuse = (await api.control('GET', `/workspaces/${ws.teamId}`)).body.misuse as { expiredTokenCalls: number; events: unknown[] };
    expect(misuse.expiredTokenCalls).toBe(MISUSE_EVENTS_MAX + 20);
    expect(misuse.events).toHaveLength(MISUSE_EVENTS_MAX);
  });

  it('a channel keeps its newest messages, and a message its newest earlier versions', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    await api.control('POST', `/channels/${channel}/messages`, { messages: Array.from({ length: MESSAGES_PER_CHANNEL_MAX }, (_, i) => ({ text: `old${i}` })) });
    const ts = (await api.form('chat.postMessage', { channel, text: 'v0' }, ws.token)).body.ts as string;
    for (let i = 1; i <= EDITS_PER_MESSAGE_MAX + 5; i += 1) await api.form('chat.update', { channel, ts, text: `v${i}` }, ws.token);
    const stored = (await api.control('GET', `/channels/${channel}`)).body as { messages: { text: string; editCount: number; previous: { text: string }[] }[] };
    expect(stored.messages).toHaveLength(MESSAGES_PER_CHANNEL_MAX);
    expect(stored.messages[0]!.text).toBe('old1');
    const last = stored.messages.at(-1)!;
    expect(last).toMatchObject({ text: `v${EDITS_PER_MESSAGE_MAX + 5}`, editCount: EDITS_PER_MESSAGE_MAX + 5 });
    expect(last.previous.map((p) => p.text)).toEqual(Array.from({ length: EDITS_PER_MESSAGE_MAX }, (_, i) => `v${i + 5}`));
  });

  it('channels per workspace stop at their cap, and a name is used once', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ channels: [] });
    for (let i = 0; i < CHANNELS_PER_WORKSPACE_MAX; i += 1)
      expect((await api.control('POST', `/workspaces/${ws.teamId}/channels`, { name: `c${i}` })).status).toBe(201);
    expect((await api.control('POST', `/workspaces/${ws.teamId}/channels`, { name: 'one-more' })).body).toMatchObject({ ok: false, error: 'conflict' });
    const other = await api.workspace({ name: 'Other', channels: [] });
    expect((await api.control('POST', `/workspaces/${other.teamId}/channels`, { name: 'c0' })).status).toBe(201);
    expect((await api.control('POST', `/workspaces/${other.teamId}/channels`, { name: '#c0' })).status).toBe(409);
  });

  it('workspaces and faults stop at their caps with a 409', async () => {
    const api = await startWebApi();
    for (let i = 0; i < WORKSPACES_MAX; i += 1) expect((await api.control('POST', '/workspaces', { name: `w${i}` })).status).toBe(201);
    expect((await api.control('POST', '/workspaces', { name: 'one too many' })).body).toMatchObject({ ok: false, error: 'conflict' });
    for (let i = 0; i < WEB_API_FAULTS_MAX; i += 1) await api.control('POST', '/faults', { method: 'chat.update', kind: 'error', times: 1 });
    const refused = await api.control('POST', '/faults', { method: 'chat.update', kind: 'error' });
    expect([refused.status, refused.body.error]).toEqual([409, 'conflict']);
  });
});

describe('bounds in-process', () => {
  it('tokens per workspace: the oldest are forgotten, and then answer as unknown', () => {
    const workspaces = createWorkspaceBook();
    const tokens = createTokenBook(workspaces);
    const ws = workspaces.add({ name: 'Acme', installed: true }, T0)!;
    const first = tokens.issueLongLived(ws, 'bot', ws.botUserId, T0);
    for (let i = 0; i < TOKENS_PER_WORKSPACE_MAX; i += 1) tokens.issueLongLived(ws, 'bot', ws.botUserId, T0);
    expect(tokens.size).toBe(TOKENS_PER_WORKSPACE_MAX);
    expect(() => tokens.authenticate(first.value, 'auth.test', T0)).toThrow(/invalid_auth/);
  });

  it('OAuth codes: at most AUTH_CODES_MAX outstanding, the oldest goes first', () => {
    const workspaces = createWorkspaceBook();
    const tokens = createTokenBook(workspaces);
    const ws = workspaces.add({ name: 'Acme', installed: false }, T0)!;
    const first = tokens.issueCode(ws.teamId, { redirectUri: null, scopes: null }, T0);
    for (let i = 0; i < AUTH_CODES_MAX; i += 1) tokens.issueCode(ws.teamId, { redirectUri: null, scopes: null }, T0);
    expect(() => tokens.redeemCode(first.code, null, T0)).toThrow(/invalid_code/);
  });

  it('the call log keeps the newest CALL_LOG_MAX calls', () => {
    const log = createCallLog();
    for (let i = 0; i <= CALL_LOG_MAX; i += 1) log.record({ atMs: i, method: 'auth.test' });
    const entries = log.list();
    expect(entries).toHaveLength(CALL_LOG_MAX);
    expect(entries[0]!.atMs).toBe(1);
  });

  it('rate-limit rules stop at RATE_LIMIT_RULES_MAX methods', () => {
    const limits = createRateLimits();
    for (let i = 0; i < RATE_LIMIT_RULES_MAX; i += 1) expect(limits.set({ method: `m${i}`, limit: 1, windowMs: 1000 })).toBe(true);
    expect(limits.set({ method: 'one.more', limit: 1, windowMs: 1000 })).toBe(false);
    expect(limits.set({ method: 'm0', limit: 2, windowMs: 1000 })).toBe(true);
    expect(defaultSettings().accessTokenLifetimeSeconds).toBe(43_200);
  });
});
