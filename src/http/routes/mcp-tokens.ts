/**
 * The admin's MCP client tokens (MCP_AUTH=token): created (the token is shown once, in the answer
 * to its creation, and kept only as its SHA-256), listed without it, and revoked.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { sha256Hex } from '../../core/content-hash.ts';
import { randomSecret } from '../../core/cursor.ts';
import { ApiError } from '../../core/errors.ts';
import type { McpTokenRecord } from '../../core/ports.ts';
import { iso } from '../api-json.ts';
import { jsonBody } from '../json-body.ts';
import { parseRequest } from '../../core/parse-request.ts';
import type { McpAccessStore } from '../../core/ports.ts';
import { type AdminGuardDeps, requireAdmin } from './admin.ts';

/** Tokens that may exist at once: one per assistant or team is the use; a hundred is plenty. */
export const MCP_TOKENS_MAX = 100;
/** Makes a leaked token recognisable to secret scanners and in a log line someone pastes. */
const TOKEN_PREFIX = 'swmcp_';

/** The body of POST /api/admin/mcp-tokens (also in /openapi.json). */
export const newTokenBody = z.object({
  label: z.string({ error: 'expected a text naming who the token is for' }).trim().min(1, 'must not be empty').max(100, 'at most 100 characters'),
});

const toApiToken = (record: McpTokenRecord) => ({ id: record.id, label: record.label, created_at: iso(record.createdAt) });

export type McpTokenRouteDeps = AdminGuardDeps & { store: Pick<McpAccessStore, 'createMcpToken' | 'listMcpTokens' | 'revokeMcpToken'> };

export function mcpTokenRoutes(deps: McpTokenRouteDeps) {
  const { store, clock } = deps;
  const app = new Hono();
  app.use('/api/admin/mcp-tokens', requireAdmin(deps));
  app.use('/api/admin/mcp-tokens/*', requireAdmin(deps));

  app.post('/api/admin/mcp-tokens', async (c) => {
    const { label } = parseRequest(newTokenBody, await jsonBody(c));
    const token = `${TOKEN_PREFIX}${randomSecret()}`;
    const record = { id: `mcpt_${randomSecret(9)}`, label, tokenHash: await sha256Hex(token), createdAt: clock.now() };
    if (!(await store.createMcpToken(record, MCP_TOKENS_MAX))) {
      throw new ApiError(409, 'too_many_tokens', `at most ${MCP_TOKENS_MAX} MCP tokens exist at once; revoke one first`);
    }
    // The only time the token is shown: the store cannot give it back.
    return c.json({ ok: true, token: toApiToken(record), secret: token }, 201, { 'cache-control': 'no-store' });
  });

  app.get('/api/admin/mcp-tokens', async (c) => c.json({ ok: true, tokens: (await store.listMcpTokens()).map(toApiToken) }));

  app.delete('/api/admin/mcp-tokens/:id', async (c) => {
    if (!(await store.revokeMcpToken(c.req.param('id')))) throw new ApiError(404, 'token_not_found', 'no MCP token with that id');
    return c.json({ ok: true });
  });

  return app;
}
