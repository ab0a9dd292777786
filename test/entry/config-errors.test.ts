/** Settings that parse but cannot work here: each stops the command with one line, exit 2, no stack. */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { occupyPort, type BusyPort } from '../helpers/busy-port.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { runCli, type CliResult } from '../helpers/cli.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

/** A serve that would otherwise start: a key is set (no key-file warning), nothing is polled. */
function serveEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_PATH: join(dir, 'archive.db'),
    STATUS_URL: 'http://127.0.0.1:9',
    POLL_ON_START: 'false',
    HOST: '127.0.0.1',
    PORT: '0',
    SECRET_KEY: 'a'.repeat(2) + '0123456789abcdef'.repeat(4).slice(2),
    ...extra,
  };
}

/** stderr, log lines (JSON) aside, is one line naming the setting with a fix; exit code 2. */
function expectOneLine(result: CliResult, setting: string, value: string): string {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`statuswatch: ${setting} ${JSON.stringify(value)}: `);
  expect(lines[0]).toMatch(/\. Fix: \S/);
  return lines[0]!;
}

describe('settings that fail on this machine', () => {
  it('DATABASE_PATH that is not an SQLite file: one line, and the file is left as it was', async () => {
    const dir = tempDir();
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'my notes, not a database\n'.repeat(100));
    for (const command of ['migrate', 'serve']) {
      const result = await runCli([command], serveEnv(dir, { DATABASE_PATH: path }));
      expect(expectOneLine(result, 'DATABASE_PATH', path)).toContain('not an SQLite database');
    }
    expect(readdirSync(dir).sort()).toEqual(['notes.db']);
  });

  it('DATABASE_PATH in a folder that cannot be made or written', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plain-file'), '');
    const underAFile = join(dir, 'plain-file', 'archive.db');
    expectOneLine(await runCli(['migrate', '--database-path', underAFile]), 'DATABASE_PATH', underAFile);
    expectOneLine(await runCli(['migrate', '--database-path', '/proc/archive.db']), 'DATABASE_PATH', '/proc/archive.db');
  });

  it('POLL_SCHEDULE with a step of 0, which passes the field count', async () => {
    const result = await runCli(['serve'], serveEnv(tempDir(), { POLL_SCHEDULE: '*/0 * * * *' }));
    expect(expectOneLine(result, 'POLL_SCHEDULE', '*/0 * * * *')).toContain('"* * * * *"');
  });

  it('a malformed SECRET_KEY, without printing the key', async () => {
    const key = 'hunter2-is-my-key';
    const result = await runCli(['serve'], serveEnv(tempDir(), { SECRET_KEY: key }));
    expect(expectOneLine(result, 'SECRET_KEY', `<${key.length} characters>`)).toContain('openssl rand -hex 32');
    expect(result.stderr).not.toContain(key);
  });

  it('HOST that is no address', async () => {
    expectOneLine(await runCli(['serve'], serveEnv(tempDir(), { HOST: '999.1.1.1' })), 'HOST', '999.1.1.1');
  });

  describe('a busy port', () => {
    let busy: BusyPort;
    let port: number;
    beforeAll(async () => {
      busy = await occupyPort();
      port = busy.port;
    });
    afterAll(() => busy.close());

    it('serve refuses with one line and exits (it used to keep running)', async () => {
      const result = await runCli(['serve'], serveEnv(tempDir(), { PORT: String(port) }));
      expect(expectOneLine(result, 'PORT', String(port))).toContain('already listening');
    });

    it('simulate refuses with one line naming --sim-port', async () => {
      const result = await runCli(['simulate', '--sim-port', String(port)], { HOST: '127.0.0.1' });
      expect(expectOneLine(result, '--sim-port', String(port))).toContain('set --sim-port to a free port');
    });
  });
});

describe('statuswatch poll', () => {
  let vendor: TestVendor;
  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 7, title: 'Calls drop' })]);
  });
  afterAll(() => vendor.close());

  it('keeps no secret: it writes no secret.key beside the database', async () => {
    const dir = tempDir();
    const result = await runCli(['poll', '--database-path', join(dir, 'archive.db'), '--status-url', vendor.url]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('poll ok: 1 change(s)');
    expect(existsSync(join(dir, 'secret.key'))).toBe(false);
    expect(result.stderr).not.toContain('SECRET_KEY');
  });
});
