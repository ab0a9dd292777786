/** The app manifest declares the MCP server, EMA when configured, and still passes --check. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAppManifest } from '../../src/core/workspace-app/manifest-schema.ts';
import { appManifest } from '../../src/core/workspace-app/manifest.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const PUBLIC_URL = 'https://status.example.com';

describe('the MCP server in the app manifest', () => {
  it('is declared with its URL and auth type for each MCP_AUTH, and EMA support only under ema', () => {
    const expected = { none: 'no_auth', token: 'manual_auth', ema: 'manual_auth' } as const;
    for (const mcpAuth of ['none', 'token', 'ema'] as const) {
      const manifest = appManifest({ publicUrl: `${PUBLIC_URL}/`, mcpAuth });
      expect(manifest.mcp_servers).toEqual({ statuswatch: { url: `${PUBLIC_URL}/mcp`, auth_type: expected[mcpAuth] } });
      expect(manifest.settings?.is_mcp_enabled).toBe(true);
      expect(manifest.oauth_config?.is_enterprise_managed_auth_supported).toBe(mcpAuth === 'ema' ? true : undefined);
      expect(checkAppManifest(manifest), mcpAuth).toEqual([]);
    }
  });

  it('comes out of `statuswatch manifest` under MCP_AUTH=ema, and `manifest --check` passes it', { timeout: 90_000 }, async () => {
    const env = {
      PUBLIC_URL,
      MCP_AUTH: 'ema',
      EMA_ISSUER: 'https://idp.example.com',
      EMA_JWKS_URL: 'https://idp.example.com/jwks',
      EMA_CLIENT_ID: 'agents',
      EMA_CLIENT_SECRET: 'a-secret-of-sixteen-or-more',
    };
    const printed = await runCli(['manifest'], env);
    expect(printed.code, printed.stderr).toBe(0);
    const manifest = JSON.parse(printed.stdout);
    expect(manifest.oauth_config.is_enterprise_managed_auth_supported).toBe(true);
    expect(manifest.mcp_servers.statuswatch.url).toBe(`${PUBLIC_URL}/mcp`);
    // The client secret is a setting the manifest never needs: it is not printed.
    expect(printed.stdout + printed.stderr).not.toContain(env.EMA_CLIENT_SECRET);
    const file = join(tempDir(), 'manifest.json');
    writeFileSync(file, printed.stdout);
    const checked = await runCli(['manifest', '--check', file]);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });
});
