/**
 * The Node runtime's scheduled poll while another process holds the archive's write lock: a real
 * SQLite file, a second real connection holding the lock, the simulated vendor on loopback.
 * The failure is named in one line without a stack, and its end is said too.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { parseConfig } from '../../src/config.ts';
import { createNodeRuntime, type NodeRuntime } from '../../src/entry/node.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

type LogLine = { level: string; msg: string; [field: string]: unknown };

describe('scheduled polls on a locked archive', () => {
  let vendor: TestVendor;
  let runtime: NodeRuntime;
  let database: string;
  const logs: LogLine[] = [];

  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 42, title: 'Search is slow' })]);
    database = join(tempDir(), 'archive.db');
    const config = parseConfig({ DATABASE_PATH: database, STATUS_URL: vendor.url, POLL_TIMEOUT_MS: '2000' });
    const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(JSON.parse(line) as LogLine) });
    runtime = await createNodeRuntime(config, logger);
  });
  afterAll(async () => {
    await runtime.close();
    await vendor.close();
  });

  it('says "polling paused: database busy" once, without a stack, and "polling resumed" when the lock goes', async () => {
    const since = logs.length; // after the start-up lines
    const holder = new Database(database);
    holder.exec('BEGIN IMMEDIATE'); // another writer, mid-transaction, for longer than the busy timeout
    try {
      expect(await runtime.pollSafely()).toBeNull();
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect((await runtime.pollSafely())?.status).toBe('ok');

    const said = logs.slice(since).filter((l) => l.level !== 'debug');
    expect(said.map((l) => [l.level, l.msg])).toEqual([
      ['error', 'polling paused: database busy'],
      ['info', 'poll changed the archive'],
      ['info', 'polling resumed'],
    ]);
    expect(JSON.stringify(said)).not.toMatch(/\\n\s+at /);
  });
});
