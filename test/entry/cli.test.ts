/** The `statuswatch` command as a user runs it: help, settings errors, migrate, poll, serve. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { CLI_RUN_TIMEOUT_MS, runCli, spawnCli } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

// Help and refused settings run the command line in-process (they end before anything starts);
// migrate, poll and serve start the real command.
describe('statuswatch command', () => {
  let vendor: TestVendor;
  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 42, title: 'Search is slow' })]);
  });
  afterAll(() => vendor.close());

  it('lists its commands, and has --help on each', async () => {
    const top = await runCliInProcess(['--help']);
    expect(top.code).toBe(0);
    for (const command of ['serve', 'poll', 'simulate', 'migrate', 'demo']) expect(top.stdout).toContain(`  ${command} `);
    const poll = await runCliInProcess(['poll', '--help']);
    expect(poll.code).toBe(0);
    expect(poll.stdout).toContain('--database-path');
    expect(poll.stdout).toContain('--status-url');
  });

  it('refuses unknown commands, unknown flags and bad settings with a clear message and exit 2', async () => {
    const unknown = await runCliInProcess(['frobnicate']);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const flag = await runCliInProcess(['poll', '--colour']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/Unknown option '--colour'/);
    const bad = await runCliInProcess(['serve'], { PORT: 'eighty', STATUS_URL: 'ftp://x', ADMIN_TOKEN: 'short', LOG_LEVEL: 'loud' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PORT: PORT must be a number');
    expect(bad.stderr).toContain('STATUS_URL: STATUS_URL must be an http(s) URL');
    expect(bad.stderr).toContain('ADMIN_TOKEN: ADMIN_TOKEN must be at least 16 characters');
    expect(bad.stderr).toContain('LOG_LEVEL: LOG_LEVEL must be debug, info, warn or error');
  });

  it('refuses an ADMIN_EMAIL or MAIL_FROM that names more than one address, with exit 2', async () => {
    const bad = await runCliInProcess(['serve'], { ADMIN_EMAIL: 'ops@example.com, eve@evil.example', MAIL_FROM: 'status@example.com;eve@evil.example' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('ADMIN_EMAIL: ADMIN_EMAIL must be one email address such as ops@example.com: it is a list of addresses, not one');
    expect(bad.stderr).toContain('MAIL_FROM: MAIL_FROM must be one sender such as "statuswatch <status@example.com>"');
  });

  it(
    'migrates a new database, then polls once and prints what changed',
    async () => {
      const database = join(tempDir(), 'nested', 'dir', 'archive.db');
      expect((await runCli(['migrate', '--database-path', database])).code).toBe(0);
      expect(existsSync(database)).toBe(true);
      const first = await runCli(['poll', '--database-path', database, '--status-url', vendor.url]);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('poll ok: 1 change(s)');
      expect(first.stdout).toMatch(/incident\.created\s+42 \(backfill\) \[incident\/active\] Search is slow/);
      const second = await runCli(['poll', '--database-path', database, '--status-url', vendor.url]);
      // The vendor served the very bodies the first poll diffed: the archive knows them, so nothing is parsed again.
      expect(second.stdout).toContain('poll ok (feed unchanged): 0 change(s)');
    },
    3 * CLI_RUN_TIMEOUT_MS,
  );

  it(
    'exits 1 from poll when the feed cannot be read',
    async () => {
      const result = await runCli(['poll', '--database-path', join(tempDir(), 'a.db'), '--status-url', 'http://127.0.0.1:9'], { POLL_TIMEOUT_MS: '2000' });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('poll failed');
      expect(result.stdout).toMatch(/v2\/current: GET http:\/\/127\.0\.0\.1:9\/api\/v2\.0\.0\/current: fetch failed/);
    },
    CLI_RUN_TIMEOUT_MS,
  );

  it(
    'serves: polls on start, answers HTTP, and stops cleanly on SIGTERM',
    async () => {
      const database = join(tempDir(), 'serve.db');
      const { child, done } = spawnCli(['serve', '--port', '0', '--host', '127.0.0.1'], { DATABASE_PATH: database, STATUS_URL: vendor.url });
      let stderr = '';
      // Serving, and its poll on start written: on a loaded machine the poll can end seconds after
      // the server answers, so the test waits for the poll's own word, not a number of tries.
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr!.on('data', (chunk) => {
          stderr += chunk;
          const match = /"msg":"statuswatch is serving","url":"([^"]+)"/.exec(stderr);
          if (match && stderr.includes('"msg":"poll changed the archive"')) resolve(match[1]!);
        });
        child.on('exit', () => reject(new Error(`serve exited early: ${stderr}`)));
      });
      try {
        const { incidents } = await (await fetch(`${url}/api/incidents`)).json();
        expect(incidents).toHaveLength(1);
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
      } finally {
        child.kill('SIGTERM');
      }
      const result = await done;
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('"msg":"stopping","signal":"SIGTERM"');
    },
    CLI_RUN_TIMEOUT_MS,
  );
});
