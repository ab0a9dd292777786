/** The MCP server's dependencies from the settings, the same for the Node and the Workers entry. */
import { accessTokens, createIdJagVerifier } from '../adapters/jose-ema-tokens.ts';
import { mcpSettings, type Config } from '../config.ts';
import { randomSecret } from '../core/cursor.ts';
import type { Store } from '../core/ports.ts';
import type { McpDeps } from '../http/deps.ts';

/** The access-token key lives in the archive, so every process and isolate accepts the same tokens. */
export const ACCESS_TOKEN_KEY_NAME = 'mcp_access_token_key';

export async function createMcpDeps(config: Config, store: Pick<Store, 'secret'>): Promise<McpDeps> {
  const settings = mcpSettings(config);
  if (!settings.ema) return { settings };
  return {
    settings,
    verifyIdJag: createIdJagVerifier(settings.ema),
    tokens: accessTokens(await store.secret(ACCESS_TOKEN_KEY_NAME, () => randomSecret())),
  };
}
