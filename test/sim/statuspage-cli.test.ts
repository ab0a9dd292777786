/** `statuswatch simulate --statuspage` serves Statuspage-format pages beside the vendor (its own and the demo's), in a real child process. */
import { expect, it } from 'vitest';
import { parseSummary } from '../../src/core/statuspage/schema.ts';
import { occupyPortAfterFree } from '../helpers/busy-port.ts';
import { CLI_RUN_TIMEOUT_MS, spawnCli } from '../helpers/cli.ts';

it("serves a page in the Statuspage format on --statuspage-port and the demo's three beside it, and logs their URLs", async () => {
  const { child, done } = spawnCli(['simulate', '--sim-port', '0', '--scim-port', '0', '--statuspage-port', '0', '--host', '127.0.0.1', '--step-seconds', '0']);
  let output = '';
  type Logged = { name?: string; url: string; summary: string };
  const lines = await new Promise<Logged[]>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const found = output.split('\n').filter((l) => l.includes('simulated Statuspage page is serving'));
      if (found.length === 4) resolve(found.map((l) => JSON.parse(l) as Logged));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`simulate exited early (${code}): ${output}`)));
  });
  const [logged] = lines as [Logged, ...Logged[]];
  try {
    expect(logged.summary).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/summary\.json$/);
    const summary = parseSummary(await (await fetch(logged.summary)).text());
    expect(summary.page.name).toBe('Acme Cloud');
    expect(summary.components.items.map((c) => c.name)).toEqual(['API', 'Website', 'Database', 'Core']);
    // The demo's pages, each on a port of its own, each under its own page.name.
    const demoPages = lines.slice(1);
    expect(new Set(demoPages.map((l) => new URL(l.url).port)).size).toBe(3);
    for (const line of demoPages) {
      const page = parseSummary(await (await fetch(line.summary)).text());
      expect([line.name, page.page.name]).toEqual([line.name, line.name]);
    }
    expect(demoPages.map((l) => l.name)).toEqual(['Gitforge', 'Nimbus Cloud', 'Paystream']);
  } finally {
    child.kill('SIGTERM');
  }
  expect((await done).code).toBe(0);
}, 60_000);

it(
  "names the port that was taken when one of the demo's pages cannot listen, and exits",
  async () => {
    // The page on busy - 3, the demo's three on the next three: the third meets the busy port, and
    // the three before it are free (a port 0 could have had a neighbour taken by anyone).
    const busy = await occupyPortAfterFree(3);
    try {
      const { child, done } = spawnCli(['simulate', '--sim-port', '0', '--scim-port', '0', '--statuspage-port', String(busy.port - 3), '--host', '127.0.0.1']);
      const timer = setTimeout(() => child.kill('SIGKILL'), CLI_RUN_TIMEOUT_MS);
      const result = await done;
      clearTimeout(timer);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`--statuspage-port "${busy.port}": another process is already listening on 127.0.0.1:${busy.port}`);
    } finally {
      await busy.close();
    }
  },
  CLI_RUN_TIMEOUT_MS + 10_000,
);
