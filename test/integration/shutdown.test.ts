/**
 * SIGTERM ends `statuswatch serve` within 10 s (a supervisor's usual wait before SIGKILL) whatever
 * an outside party is doing: a SCIM directory that never answers a sync, a webhook receiver that
 * never answers a delivery, an SMTP server that never greets. Each runs as a real child process.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import type { CliResult } from '../helpers/cli.ts';
import { serveEnv, spawnServe, type ServeProcess } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { control, startScim } from '../sim/scim-helpers.ts';

const STOP_LIMIT_MS = 10_000;
const stopTimes: Record<string, number> = {};

/** Sends SIGTERM and measures until the process is gone. */
async function terminate(service: ServeProcess): Promise<{ result: CliResult; elapsedMs: number }> {
  const sentAt = performance.now();
  const result = await service.kill('SIGTERM');
  return { result, elapsedMs: performance.now() - sentAt };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A listener that accepts every connection and never says a word. */
async function silentTcp(): Promise<{ port: number; sockets: Socket[]; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP receiver that reads each request and never answers it. */
async function silentReceiver(): Promise<{ url: string; received: number; close(): Promise<void> }> {
  const state = { received: 0 };
  const server: HttpServer = createHttpServer((req) => {
    req.resume();
    req.on('end', () => (state.received += 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    get received() {
      return state.received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('serve stops on SIGTERM within 10 s', { timeout: 60_000 }, () => {
  let vendor: TestVendor;
  let smtp: TestSmtp;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    smtp = await startSmtp();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await vendor.setIncidents([]);
  });
  afterAll(async () => {
    await smtp.close();
    await vendor.close();
    console.log('SIGTERM to exit, ms:', stopTimes);
  });

  /** Serve on a fresh archive, polled once (the seed: no deliveries), with `extra` settings. */
  async function startServe(extra: Record<string, string>, database = join(tempDir(), 'archive.db')): Promise<ServeProcess> {
    const serve = spawnServe(serveEnv(database, vendor.url, { POLL_ON_START: 'false', POLL_SCHEDULE: '0 0 1 1 *', ...extra }));
    cleanups.push(() => serve.kill('SIGKILL'));
    const service = await serve.started;
    expect((await service.admin('POST', '/api/admin/poll')).outcome).toBe('ok');
    return service;
  }

  /** A new incident, polled: its deliveries go out at once. */
  async function newIncident(service: ServeProcess): Promise<void> {
    await vendor.setIncidents([rawIncident({ id: 4242, title: 'Messages are delayed' })]);
    expect((await service.admin('POST', '/api/admin/poll')).outcome).toBe('ok');
  }

  it('while a sync reads a SCIM directory that never answers', async () => {
    const directory: RunningSimulatedScim = await startScim({ clock: Date.now });
    cleanups.push(() => directory.close());
    await control(directory, 'POST', '/seed', { users: 5, groups: [{ displayName: 'On call', members: 5 }] });
    const service = await startServe({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'statuswatch <status@example.test>',
      SCIM_URL: directory.url,
      SCIM_TOKEN: directory.token,
    });
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'On call' });
    expect(created.ok).toBe(true);

    // From now on the directory holds every request open; the admin asks for a sync.
    await control(directory, 'POST', '/faults', { target: '*', kind: 'timeout' });
    const sync = service.admin('POST', `/api/subscriptions/${created.subscription.id}/sync`).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const { result, elapsedMs } = await terminate(service);
    stopTimes.scim = Math.round(elapsedMs);
    await sync;
    expect(result.signal).toBeNull();
    expect(elapsedMs).toBeLessThan(STOP_LIMIT_MS);
    // Cutting the open sends stops the sync too: it records why, and its request ends with it.
    expect(result.stderr).toMatch(/"group sync failed[^\n]*"code":"stopped"/);
  });

  it('while a webhook receiver never answers a delivery', async () => {
    const receiver = await silentReceiver();
    cleanups.push(() => receiver.close());
    const database = join(tempDir(), 'archive.db');
    const service = await startServe({}, database);
    expect((await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: receiver.url })).ok).toBe(true);
    await newIncident(service);
    await until(() => receiver.received > 0, 'the delivery to reach the receiver');

    const { result, elapsedMs } = await terminate(service);
    stopTimes.webhook = Math.round(elapsedMs);
    expect(result.signal).toBeNull();
    expect(elapsedMs).toBeLessThan(STOP_LIMIT_MS);
    // The delivery was cut, not forgotten: it is still pending in the archive, to be sent again.
    expect(result.stderr).toMatch(/cutting open sends/);
    const archive = openSqliteArchive(database);
    try {
      expect(await createSqliteStore(archive.connection).listDeliveries({}, null, 10)).toMatchObject([{ channel: 'webhook', state: 'pending' }]);
    } finally {
      archive.close();
    }
  });

  it('while an SMTP server never greets', async () => {
    const silent = await silentTcp();
    cleanups.push(() => silent.close());
    const service = await startServe({ SMTP_URL: `smtp://127.0.0.1:${silent.port}`, MAIL_FROM: 'statuswatch <status@example.test>' });
    expect((await service.admin('POST', '/api/subscriptions', { channel: 'email', email: 'ops@example.test' })).ok).toBe(true);
    await newIncident(service);
    await until(() => silent.sockets.length > 0, 'the mailer to connect');

    const { result, elapsedMs } = await terminate(service);
    stopTimes.smtp = Math.round(elapsedMs);
    expect(result.signal).toBeNull();
    expect(elapsedMs).toBeLessThan(STOP_LIMIT_MS);
  });
});
