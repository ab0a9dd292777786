/**
 * The EMA pieces as a user starts them: `statuswatch simulate --idp` serves the
 * identity provider, and `npm run demo` runs the EMA flow and hands out a token /mcp accepts.
 */
import { expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { connectMcp } from './mcp-helpers.ts';

/** Resolves with the first output line `match` finds, while the child runs. */
function waitForLine(child: ReturnType<typeof spawnCli>['child'], match: (line: string) => boolean): Promise<{ line: string; output: string }> {
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find(match);
      if (line) resolve({ line, output });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`exited early (${code}): ${output}`)));
  });
}

it('simulate --idp-port serves the identity provider and logs EMA_ISSUER and EMA_JWKS_URL', async () => {
  const { child, done } = spawnCli(['simulate', '--sim-port', '0', '--scim-port', '0', '--idp-port', '0', '--host', '127.0.0.1', '--step-seconds', '0']);
  try {
    const { line } = await waitForLine(child, (l) => l.includes('simulated identity provider is serving'));
    const logged = JSON.parse(line) as { EMA_ISSUER: string; EMA_JWKS_URL: string };
    expect(logged.EMA_ISSUER).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const jwks = await (await fetch(logged.EMA_JWKS_URL)).json();
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })]);
    expect(jwks.keys[0].d).toBeUndefined();
  } finally {
    child.kill('SIGTERM');
  }
  expect((await done).code).toBe(0);
}, 60_000);

it('the demo runs the EMA flow through the simulated identity provider and prints a token /mcp accepts', async () => {
  const { child, done } = spawnCli(['demo', '--port', '0', '--host', '127.0.0.1', '--step-seconds', '3600'], {}, { cwd: tempDir() });
  try {
    const { line } = await waitForLine(child, (l) => l.includes('MCP server (EMA'));
    const match = /(http:\/\/\S+)\/mcp\s+Authorization: Bearer (\S+)/.exec(line);
    expect(match, line).not.toBeNull();
    const mcp = await connectMcp(match![1]!, match![2]!);
    expect((await mcp.client.listTools()).tools).toHaveLength(5);
    await mcp.close();
    expect((await fetch(`${match![1]}/mcp`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(401);
  } finally {
    child.kill('SIGTERM');
  }
  await done;
}, 90_000);
