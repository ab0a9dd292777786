/**
 * Signing keys that live with the archive, so every process and isolate shares them (the cursor
 * key, the MCP access-token key), kept sealed by the secret box like every other secret: a copy of
 * the database alone (a backup, an export to D1) can neither forge a cursor nor mint an MCP token.
 */
import { randomSecret } from '../core/cursor.ts';
import type { ArchiveQueries } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';

/**
 * The key named `name`, made on first use. It is kept under the box's key id: a new SECRET_KEY
 * makes a new signing key (what the old one signed stops being accepted) instead of failing to
 * open the old one.
 */
export async function archiveSigningKey(store: Pick<ArchiveQueries, 'secret'>, box: SecretBox, name: string): Promise<string> {
  // Sealed before knowing whether it is needed: the store keeps the first value any process
  // offers, and every process opens that one.
  const offered = await box.seal(randomSecret());
  return box.open(await store.secret(`${name}.sealed.${box.keyId}`, () => offered));
}
