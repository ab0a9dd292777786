/**
 * The MCP access contract: admin-made tokens are found by hash only, capped, and gone
 * everywhere once revoked; an ID-JAG's jti is spent once across every process, and the log of
 * spent ones is bounded however many assertions arrive.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpTokenRecord, Store } from '../../src/core/ports.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 23, 12);
const token = (n: number): McpTokenRecord => ({ id: `mcpt_${n}`, label: `client ${n}`, tokenHash: `hash-${n}`, createdAt: T0 + n });

export function mcpAccessContract(target: StoreTarget): void {
  describe(`MCP access (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it('finds a token by its hash from another store, lists them oldest first, and forgets a revoked one everywhere', async () => {
      const other = opened.openAnother();
      expect(await store.createMcpToken(token(2), 10)).toBe(true);
      expect(await other.createMcpToken(token(1), 10)).toBe(true);
      expect(await other.findMcpTokenByHash('hash-2')).toEqual(token(2));
      expect(await store.findMcpTokenByHash('hash-3')).toBeNull();
      expect(await store.listMcpTokens()).toEqual([token(1), token(2)]);
      expect(await other.revokeMcpToken('mcpt_2')).toBe(true);
      expect(await store.findMcpTokenByHash('hash-2')).toBeNull();
      expect(await store.revokeMcpToken('mcpt_2')).toBe(false);
      expect(await store.listMcpTokens()).toEqual([token(1)]);
    });

    it('never holds more than the cap of tokens, even when many are created at once from three stores', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const made = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.createMcpToken(token(i), 5)));
      expect(made.filter(Boolean)).toHaveLength(5);
      expect(await store.listMcpTokens()).toHaveLength(5);
      // Revoking one makes room for exactly one.
      const [first] = await store.listMcpTokens();
      await store.revokeMcpToken(first!.id);
      expect(await store.createMcpToken(token(100), 5)).toBe(true);
      expect(await store.createMcpToken(token(101), 5)).toBe(false);
    });

    it('spends a jti once: a second use is a replay from any store, until the assertion expires', async () => {
      const other = opened.openAnother();
      expect(await store.spendAssertion('iss|jti-1', T0 + 300_000, T0, 100)).toBe('spent');
      expect(await other.spendAssertion('iss|jti-1', T0 + 300_000, T0 + 1, 100)).toBe('replayed');
      expect(await other.spendAssertion('iss|jti-2', T0 + 300_000, T0 + 1, 100)).toBe('spent');
      // Once expired, the key is dropped (the assertion itself is refused as expired by then).
      expect(await store.spendAssertion('iss|jti-1', T0 + 600_000, T0 + 300_000, 100)).toBe('spent');
    });

    it('lets exactly one of many simultaneous uses of one jti through', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const outcomes = await Promise.all(Array.from({ length: 15 }, (_, i) => stores[i % 3]!.spendAssertion('iss|jti-race', T0 + 300_000, T0, 100)));
      expect(outcomes.filter((o) => o === 'spent')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'replayed')).toHaveLength(14);
    });

    it('keeps at most maxLive unexpired jtis: a flood is refused as full, and expired ones make room', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const flood = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.spendAssertion(`iss|flood-${i}`, T0 + 300_000, T0, 10)));
      expect(flood.filter((o) => o === 'spent')).toHaveLength(10);
      expect(flood.filter((o) => o === 'full')).toHaveLength(20);
      // A refused one was not recorded: it is not a replay later.
      const refused = flood.indexOf('full');
      expect(await store.spendAssertion(`iss|flood-${refused}`, T0 + 900_000, T0 + 300_000, 10)).toBe('spent');
    });
  });
}
