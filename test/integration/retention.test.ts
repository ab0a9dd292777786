/**
 * Disk that outside input can fill, end to end on a real SQLite file: a vendor answering the same
 * 1 MB error page to every poll, and a flood of spoofed sign-ups, then the service's own pruning.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { PRUNE_BATCH_ROWS } from '../../src/app/retention.ts';
import { parseConfig } from '../../src/config.ts';
import { createNodeRuntime, type NodeRuntime } from '../../src/entry/node.ts';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { logLines } from '../helpers/log-lines.ts';

const MB = 1_000_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A 1 MB maintenance page, the same bytes every time; varied text so nothing could shrink it. */
function maintenancePage(): string {
  let text = '<!doctype html><html><head><title>Down for maintenance</title></head><body><pre>';
  for (let i = 0; text.length < MB - 30; i++) text += `${(i * 2654435761) % 4294967296} `;
  return `${text}</pre></body></html>`.padEnd(MB, ' ');
}

/** A vendor on loopback that answers every path with the same HTML page and a 200. */
async function startHtmlVendor(page: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The database's size as SQLite counts it (WAL included): pages in use times the page size. */
function databaseBytes(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  } finally {
    db.close();
  }
}

function countRows(path: string, sql: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('retention', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('keeps one copy of a 1 MB error page that 20 polls received 60 times, and shows it with every run', async () => {
    const page = maintenancePage();
    const vendor = await startHtmlVendor(page);
    cleanups.push(() => vendor.close());
    const service: TestService = await startTestService(vendor.url);
    cleanups.push(() => service.close());
    const dbPath = join(service.dir, 'archive.db');

    const before = databaseBytes(dbPath);
    const runs: string[] = [];
    for (let i = 0; i < 20; i++) {
      const result = await service.poll();
      expect(result.outcome).toBe('failed');
      runs.push(result.run.id);
    }
    const grown = databaseBytes(dbPath) - before;
    // The page's first 65,536 characters are kept (what an admin needs to see; small enough for a
    // D1 row, sqlite-poll-apply.ts)...
    const kept = page.slice(0, 65_536);
    expect(grown).toBeGreaterThan(kept.length);
    // ...once: 60 copies would be 4 MB. The rest is 20 small poll_runs rows and their indexes.
    expect(grown).toBeLessThan(kept.length + 0.5 * MB);

    const sha256 = createHash('sha256').update(page).digest('hex');
    for (const id of [runs[0], runs[19]]) {
      const res = await fetch(`${service.url}/api/admin/polls/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      const detail = await res.json();
      expect(detail.rejected_payloads.map((r: { source: string }) => r.source)).toEqual(['v2/current', 'v1/current', 'v2/history']);
      for (const r of detail.rejected_payloads) {
        expect(r.body).toBe(kept);
        expect(r.sha256).toBe(sha256);
        expect(r.seen_count).toBe(60);
        expect(r.error).toMatch(/invalid JSON/);
      }
    }
  });

  it('leaves no trace of a flood of spoofed sign-ups once their links have expired, and keeps the real subscriber', async () => {
    // A real SMTP server that takes every mail and keeps none: the flood sends one per sign-up.
    let mails = 0;
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      logger: false,
      onData(stream, _session, callback) {
        stream.on('data', () => {});
        stream.on('end', () => {
          mails += 1;
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise((resolve) => smtp.close(() => resolve())));

    const dir = tempDir();
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const dbPath = join(dir, 'archive.db');
    let offsetMs = 0;
    const clock = { now: () => Date.now() + offsetMs };
    const config = parseConfig({
      DATABASE_PATH: dbPath,
      STATUS_URL: 'http://127.0.0.1:9',
      SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      LOG_LEVEL: 'info',
    });
    const logs: string[] = [];
    const runtime: NodeRuntime = await createNodeRuntime(config, createConsoleLogger({ level: 'info', format: 'json', write: (l) => logs.push(l) }), clock);
    cleanups.push(() => runtime.close());

    // One real person signs up and confirms: they must survive every prune.
    await runtime.subscriptions.signUp({ channel: 'email', target: 'reader@example.test', filters: {}, timeZone: 'UTC' }, '198.51.100.7');
    const reader = await runtime.store.findSubscription('email', 'reader@example.test');
    await runtime.store.updateSubscription(reader!.id, { status: 'active' }, clock.now());

    // The flood: every request from its own spoofed address, for its own made-up recipient. Its
    // rows fill two prune batches and spill into a third, so each prune must go on past a full one.
    const SIGNUPS = 2 * PRUNE_BATCH_ROWS + 1;
    const inFlight = 16;
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        for (let i = next++; i < SIGNUPS; i = next++) {
          const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
          await runtime.subscriptions.signUp({ channel: 'email', target: `victim${i}@example.test`, filters: {}, timeZone: 'UTC' }, address);
        }
      }),
    );
    expect(mails).toBe(SIGNUPS + 1);
    const pending = () => countRows(dbPath, "SELECT count(*) AS n FROM subscriptions WHERE status = 'pending'");
    const tokens = () => countRows(dbPath, 'SELECT count(*) AS n FROM link_tokens');
    const rateLimits = () => countRows(dbPath, 'SELECT count(*) AS n FROM rate_limits');
    expect([pending(), tokens(), rateLimits()]).toEqual([SIGNUPS, SIGNUPS + 1, 2 * SIGNUPS + 2]);

    // A day later the rate limits have done their job (windows of 10 minutes and an hour).
    offsetMs = 1 * DAY_MS;
    await runtime.pruneSafely();
    expect([pending(), rateLimits()]).toEqual([SIGNUPS, 0]);

    // Past the 7 days of their confirmation links, the sign-ups can never be confirmed: gone.
    offsetMs = 7 * DAY_MS + 60_000;
    await runtime.pruneSafely();
    expect(pending()).toBe(0);

    // Expired links are kept 30 more days (so an old link still says "expired"), then go too.
    offsetMs = 37 * DAY_MS + 120_000;
    await runtime.pruneSafely();
    expect([pending(), tokens(), rateLimits()]).toEqual([0, 0, 0]);
    expect((await runtime.store.getSubscription(reader!.id))?.status).toBe('active');
    // Each prune said what it removed, in one line.
    const lines = logLines(logs, 'pruned expired rows');
    expect(lines.map((l) => [l.pendingSignups, l.linkTokens, l.rateLimits])).toEqual([
      [0, 0, 2 * SIGNUPS + 2],
      [SIGNUPS, 0, 0],
      [0, SIGNUPS + 1, 0],
    ]);
  }, 300_000);
});
