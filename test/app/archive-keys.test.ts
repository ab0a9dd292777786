/**
 * The signing keys kept with the archive (cursor, MCP access tokens): one key for every process on
 * the file, stored only sealed, and a new SECRET_KEY makes a new key instead of failing to start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { archiveSigningKey } from '../../src/app/archive-keys.ts';
import { createSecretBox, generateSecretKey } from '../../src/core/secret-box.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

describe('archiveSigningKey', () => {
  let archive: TempArchive;
  afterEach(() => archive?.remove());

  it('gives every process on the file the same key, and keeps only its sealed text', async () => {
    archive = openTempArchive();
    const box = await createSecretBox(generateSecretKey());
    const other = openSqliteArchive(archive.path); // a second process's connection
    try {
      const [first, second] = await Promise.all([
        archiveSigningKey(archive.store, box, 'cursor'),
        archiveSigningKey(createSqliteStore(other.connection), box, 'cursor'),
      ]);
      expect(first).toBe(second);
      expect(first.length).toBeGreaterThanOrEqual(43); // 32 random bytes, base64url
      const stored = archive.sqlite.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
      expect(stored.map((row) => row.value)).not.toContain(first);
      expect(stored.some((row) => row.value.includes(first))).toBe(false);
    } finally {
      other.close();
    }
  });

  it('makes a new key under a new SECRET_KEY, and the old one comes back with the old SECRET_KEY', async () => {
    archive = openTempArchive();
    const oldBox = await createSecretBox(generateSecretKey());
    const newBox = await createSecretBox(generateSecretKey());
    const before = await archiveSigningKey(archive.store, oldBox, 'mcp_access_token_key');
    const after = await archiveSigningKey(archive.store, newBox, 'mcp_access_token_key');
    expect(after).not.toBe(before);
    expect(await archiveSigningKey(archive.store, oldBox, 'mcp_access_token_key')).toBe(before);
    // Names do not share keys.
    expect(await archiveSigningKey(archive.store, newBox, 'cursor')).not.toBe(after);
  });
});
