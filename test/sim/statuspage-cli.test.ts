/** `statuswatch simulate --statuspage` serves a Statuspage-format page beside the vendor, in a real child process. */
import { expect, it } from 'vitest';
import { parseSummary } from '../../src/core/statuspage/schema.ts';
import { spawnCli } from '../helpers/cli.ts';

it('serves a page in the Statuspage format on --statuspage-port and logs its URL', async () => {
  const { child, done } = spawnCli(['simulate', '--sim-port', '0', '--scim-port', '0', '--statuspage-port', '0', '--host', '127.0.0.1', '--step-seconds', '0']);
  let output = '';
  const logged = await new Promise<{ url: string; summary: string }>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.includes('simulated Statuspage page is serving'));
      if (line) resolve(JSON.parse(line) as { url: string; summary: string });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`simulate exited early (${code}): ${output}`)));
  });
  try {
    expect(logged.summary).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/summary\.json$/);
    const summary = parseSummary(await (await fetch(logged.summary)).text());
    expect(summary.page.name).toBe('Acme Cloud');
    expect(summary.components.items.map((c) => c.name)).toEqual(['API', 'Website', 'Database', 'Core']);
  } finally {
    child.kill('SIGTERM');
  }
  expect((await done).code).toBe(0);
}, 60_000);
