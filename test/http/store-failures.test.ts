/**
 * Requests that need the database while another process holds its write lock (a real SQLite file,
 * a second real connection): 503 in the error shape with Retry-After, one log line for the lot,
 * and normal answers once the lock goes.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createApp } from '../../src/http/app.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { nodeAppPorts } from '../helpers/node-app-ports.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

type LogLine = { level: string; msg: string; [field: string]: unknown };
const ADMIN_TOKEN = 'store-failures-admin-token-0123';

describe('requests while the database is locked', () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  it('answer 503 storage_unavailable with Retry-After, logged once without a stack', async () => {
    const logs: LogLine[] = [];
    const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(JSON.parse(line) as LogLine) });
    const poller = { pollOnce: async () => ({ status: 'skipped' as const, reason: 'another poll is running' as const }) };
    const app = createApp(await buildAppDeps({ ...(await nodeAppPorts(archive.connection, logger)), poller }, { env: { ADMIN_TOKEN } }));
    // A wrong token is counted against the client's address: a write, from anyone on the internet.
    const wrongToken = () =>
      app.request('http://localhost/admin/sign-in', {
        method: 'POST',
        headers: { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=guess',
      });

    const holder = new Database(archive.path);
    holder.exec('BEGIN IMMEDIATE');
    // Fail at once rather than after the 5 s wait the service allows another writer.
    archive.sqlite.pragma('busy_timeout = 0');
    try {
      for (let i = 0; i < 20; i++) {
        const res = await wrongToken();
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('30');
        expect(await res.json()).toMatchObject({ ok: false, error: 'storage_unavailable', detail: expect.stringContaining('database busy') });
      }
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect((await wrongToken()).status).toBe(401);

    const said = logs.filter((l) => l.level !== 'debug');
    expect(said.map((l) => [l.level, l.msg])).toEqual([['error', 'requests failing: database busy']]);
    expect(JSON.stringify(said)).not.toMatch(/\\n\s+at /);
  });
});
