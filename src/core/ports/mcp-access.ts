/**
 * Who may use the MCP server: the bearer tokens an admin hands to MCP clients
 * (MCP_AUTH=token), and the ID-JAG identifiers already spent at the EMA token endpoint (MCP_AUTH=ema).
 */

/** A token as stored and listed: never the token itself, only its SHA-256 (hex). */
export type McpTokenRecord = { id: string; label: string; tokenHash: string; createdAt: number };

/** What spending an assertion's jti came to: first use, a replay, or no room to remember it. */
export type SpendOutcome = 'spent' | 'replayed' | 'full';

export interface McpAccessStore {
  /** Saves a new token unless `maxTokens` exist already (then false: the admin revokes one first). */
  createMcpToken(record: McpTokenRecord, maxTokens: number): Promise<boolean>;
  /** Oldest first. */
  listMcpTokens(): Promise<McpTokenRecord[]>;
  /** Deletes the token: it stops working at once, in every process. False when there was none. */
  revokeMcpToken(id: string): Promise<boolean>;
  findMcpTokenByHash(tokenHash: string): Promise<McpTokenRecord | null>;
  /**
   * Records `key` (issuer and jti) as spent until `expiresAt`, atomically: `replayed` when it was
   * spent before and has not expired, `full` when `maxLive` unexpired keys are held already (the
   * assertion is refused, never let through unrecorded). Expired keys are dropped on the way.
   */
  spendAssertion(key: string, expiresAt: number, now: number, maxLive: number): Promise<SpendOutcome>;
}
