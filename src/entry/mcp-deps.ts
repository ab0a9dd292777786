/** The MCP server's dependencies from the settings, the same for the Node and the Workers entry. */
import { accessTokens, createIdJagVerifier } from '../adapters/jose-ema-tokens.ts';
import { archiveSigningKey } from '../app/archive-keys.ts';
import { mcpSettings, type Config } from '../config.ts';
import type { ArchiveQueries } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { McpDeps } from '../http/deps.ts';

/** The access-token key lives in the archive, sealed, so every process and isolate accepts the same tokens. */
export const ACCESS_TOKEN_KEY_NAME = 'mcp_access_token_key';

export async function createMcpDeps(config: Config, store: Pick<ArchiveQueries, 'secret'>, box: SecretBox): Promise<McpDeps> {
  const settings = mcpSettings(config);
  if (!settings.ema) return { settings };
  return {
    settings,
    verifyIdJag: createIdJagVerifier(settings.ema),
    tokens: accessTokens(await archiveSigningKey(store, box, ACCESS_TOKEN_KEY_NAME)),
  };
}
