import { describe, expect, it } from 'vitest';
import {
  CONFIRM_TOKEN_TTL_MS,
  MANAGE_TOKEN_TTL_MS,
  TOKEN_PURPOSES,
  UNSUBSCRIBE_TOKEN_TTL_MS,
  checkToken,
  hashToken,
  isWellFormedToken,
  issueToken,
} from '../../src/core/confirmation-token.ts';
import type { TokenPurpose } from '../../src/core/confirmation-token.ts';

const now = Date.UTC(2025, 0, 15, 12);
const DAY_MS = 24 * 60 * 60 * 1000;

describe('issueToken', () => {
  it('gives 32 random bytes as base64url and stores only their hash', async () => {
    const { token, record } = await issueToken('confirm', now);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(record.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(record.hash).toBe(await hashToken('confirm', token));
    expect(JSON.stringify(record)).not.toContain(token);
    expect(record).toEqual({ hash: record.hash, purpose: 'confirm', expiresAt: now + 7 * DAY_MS });
  });

  it('is different every time', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 50; i++) tokens.add((await issueToken('confirm', now)).token);
    expect(tokens.size).toBe(50);
  });

  it('keeps confirm links for a week and the links in every email for a year', async () => {
    expect(CONFIRM_TOKEN_TTL_MS).toBe(7 * DAY_MS);
    expect((await issueToken('unsubscribe', now)).record.expiresAt).toBe(now + UNSUBSCRIBE_TOKEN_TTL_MS);
    expect((await issueToken('manage', now)).record.expiresAt).toBe(now + MANAGE_TOKEN_TTL_MS);
    expect(UNSUBSCRIBE_TOKEN_TTL_MS).toBeGreaterThanOrEqual(365 * DAY_MS);
  });

  it('refuses an unknown purpose', async () => {
    await expect(issueToken('delete' as TokenPurpose, now)).rejects.toThrow(/expected one of confirm, unsubscribe, manage, got "delete"/);
  });
});

describe('hashToken', () => {
  it('differs by purpose and is stable', async () => {
    const { token } = await issueToken('confirm', now);
    const hashes = await Promise.all(TOKEN_PURPOSES.map((p) => hashToken(p, token)));
    expect(new Set(hashes).size).toBe(3);
    expect(await hashToken('confirm', token)).toBe(hashes[0]);
  });
});

describe('checkToken', () => {
  it('accepts the issued token until just before expiry', async () => {
    const { token, record } = await issueToken('confirm', now);
    expect(await checkToken(record, { purpose: 'confirm', token }, now)).toEqual({ ok: true });
    expect(await checkToken(record, { purpose: 'confirm', token }, record.expiresAt - 1)).toEqual({ ok: true });
  });

  it('is expired exactly at expiry and after', async () => {
    const { token, record } = await issueToken('confirm', now);
    expect(await checkToken(record, { purpose: 'confirm', token }, record.expiresAt)).toEqual({ ok: false, reason: 'expired' });
    expect(await checkToken(record, { purpose: 'confirm', token }, record.expiresAt + DAY_MS)).toEqual({ ok: false, reason: 'expired' });
  });

  it('reports a redeemed token as used, even once it has also expired', async () => {
    const { token, record } = await issueToken('confirm', now);
    const used = { ...record, usedAt: now + 1000 };
    expect(await checkToken(used, { purpose: 'confirm', token }, now + 2000)).toEqual({ ok: false, reason: 'used' });
    expect(await checkToken(used, { purpose: 'confirm', token }, record.expiresAt + 1)).toEqual({ ok: false, reason: 'used' });
    expect(await checkToken({ ...record, usedAt: null }, { purpose: 'confirm', token }, now)).toEqual({ ok: true });
  });

  it('names a real token shown to the wrong route', async () => {
    const { token, record } = await issueToken('confirm', now);
    expect(await checkToken(record, { purpose: 'unsubscribe', token }, now)).toEqual({ ok: false, reason: 'wrong_purpose' });
    // The store is looked up by the presented purpose's hash, which never finds the confirm row.
    expect(await hashToken('unsubscribe', token)).not.toBe(record.hash);
  });

  it('says unknown for no record or another token, telling a stranger nothing about the record', async () => {
    const { token, record } = await issueToken('confirm', now);
    const other = (await issueToken('confirm', now)).token;
    expect(await checkToken(null, { purpose: 'confirm', token }, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(await checkToken(record, { purpose: 'confirm', token: other }, now)).toEqual({ ok: false, reason: 'unknown' });
    const usedAndExpired = { ...record, usedAt: now };
    expect(await checkToken(usedAndExpired, { purpose: 'unsubscribe', token: other }, record.expiresAt + 1)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('says unknown for malformed tokens and records', async () => {
    const { token, record } = await issueToken('confirm', now);
    for (const bad of [
      '',
      token.slice(1),
      `${token}A`,
      `${token.slice(0, -1)}=`,
      `${token.slice(0, -1)}+`,
      `${token.slice(0, -2)}/a`,
      'x'.repeat(100_000),
      ` ${token.slice(1)}`,
    ]) {
      expect(await checkToken(record, { purpose: 'confirm', token: bad }, now), bad.slice(0, 50)).toEqual({ ok: false, reason: 'unknown' });
      expect(isWellFormedToken(bad)).toBe(false);
    }
    expect(await checkToken(record, { purpose: 'confirm', token: 42 as unknown as string }, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(await checkToken({ ...record, hash: record.hash.toUpperCase() }, { purpose: 'confirm', token }, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(await checkToken({ ...record, hash: '' }, { purpose: 'confirm', token }, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(await checkToken({ ...record, purpose: 'delete' as TokenPurpose }, { purpose: 'confirm', token }, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(isWellFormedToken(token)).toBe(true);
  });

  it('keeps unsubscribe links working months later', async () => {
    const { token, record } = await issueToken('unsubscribe', now);
    expect(await checkToken(record, { purpose: 'unsubscribe', token }, now + 180 * DAY_MS)).toEqual({ ok: true });
  });
});
