/**
 * MCP access in SQLite: the McpAccessStore port. Each bounded write is one conditional INSERT whose
 * sub-select counts the rows, run in one atomic list, so that on D1 as on better-sqlite3 the
 * database, not a read before the write, decides whether there is room.
 */
import { asc, eq } from 'drizzle-orm';
import type { McpAccessStore, McpTokenRecord } from '../core/ports.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import * as t from './store-schema.ts';

const toRecord = (row: typeof t.mcpTokens.$inferSelect): McpTokenRecord => ({
  id: row.id,
  label: row.label,
  tokenHash: row.tokenHash,
  createdAt: row.createdMs,
});

export function createSqliteMcpAccessStore(connection: SqliteConnection): McpAccessStore {
  const { db } = connection;
  return {
    async createMcpToken(record, maxTokens) {
      const [inserted] = await connection.runAtomically([
        {
          sql: 'INSERT INTO mcp_tokens (id, label, token_hash, created_ms) SELECT ?, ?, ?, ? WHERE (SELECT count(*) FROM mcp_tokens) < ? RETURNING id',
          params: [record.id, record.label, record.tokenHash, record.createdAt, maxTokens],
        },
      ]);
      return (inserted?.length ?? 0) > 0;
    },

    async listMcpTokens() {
      const rows = await db.select().from(t.mcpTokens).orderBy(asc(t.mcpTokens.createdMs), asc(t.mcpTokens.id)).all();
      return rows.map(toRecord);
    },

    async revokeMcpToken(id) {
      const [deleted] = await connection.runAtomically([{ sql: 'DELETE FROM mcp_tokens WHERE id = ? RETURNING id', params: [id] }]);
      return (deleted?.length ?? 0) > 0;
    },

    async findMcpTokenByHash(tokenHash) {
      const row = await db.select().from(t.mcpTokens).where(eq(t.mcpTokens.tokenHash, tokenHash)).get();
      return row ? toRecord(row) : null;
    },

    async spendAssertion(key, expiresAt, now, maxLive) {
      const [, inserted, known] = await connection.runAtomically([
        { sql: 'DELETE FROM mcp_spent_assertions WHERE expires_ms <= ?', params: [now] },
        {
          sql:
            'INSERT INTO mcp_spent_assertions (key, expires_ms) SELECT ?, ? WHERE (SELECT count(*) FROM mcp_spent_assertions) < ? ' +
            'ON CONFLICT (key) DO NOTHING RETURNING key',
          params: [key, expiresAt, maxLive],
        },
        // Read in the same step: a key that is there but was not inserted now was spent before.
        { sql: 'SELECT key FROM mcp_spent_assertions WHERE key = ?', params: [key] },
      ]);
      if ((inserted?.length ?? 0) > 0) return 'spent';
      return (known?.length ?? 0) > 0 ? 'replayed' : 'full';
    },
  };
}
