/**
 * SIGKILL of the service in the middle of fan-out (and of polls), over and over: in the end every
 * delivery reaches the receiver, each under the one webhook-id it was given, and only deliveries
 * that were in flight at a kill are sent again.
 * CRASH_ROUNDS=100 npx vitest run test/integration/delivery-crash.test.ts runs the long version.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookMessageId } from '../../src/core/fanout.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { spawnCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN, startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const SUBSCRIBERS = 20;

type Service = { url: string; kill(signal: NodeJS.Signals): Promise<void> };

async function startServe(env: Record<string, string>): Promise<Service> {
  const { child, done } = spawnCli(['serve'], env);
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"url":"(http:[^"]+)"/.exec(buffered);
      if (match) resolve(match[1]!);
    });
    void done.then((r) => reject(new Error(`serve exited early: ${r.code} ${r.stderr}`)));
  });
  return {
    url,
    async kill(signal) {
      child.kill(signal);
      await done;
    },
  };
}

async function admin(service: Service, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(service.url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

describe('delivery durability', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    receiver = await startWebhookReceiver({ answerDelayMs: () => Math.random() * 15 });
  });
  afterAll(async () => {
    await receiver.close();
    await vendor.close();
  });

  it(`loses no webhook and gives none a second id across ${CRASH_ROUNDS} SIGKILLs during fan-out`, async () => {
    const dir = tempDir();
    const database = join(dir, 'archive.db');
    const env = {
      DATABASE_PATH: database,
      STATUS_URL: vendor.url,
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      POLL_ON_START: 'false',
      POLL_SCHEDULE: '0 0 1 1 *',
      // info: the "serving" log line (on stderr) tells the test the URL.
      LOG_LEVEL: 'info',
    };
    const incidents: RawIncident[] = [];

    let service = await startServe(env);
    await admin(service, 'POST', '/api/admin/poll'); // seeds an empty archive
    for (let i = 0; i < SUBSCRIBERS; i++) {
      await admin(service, 'POST', '/api/subscriptions', { channel: 'webhook', url: `${receiver.url}?s=${i}` });
    }
    await service.kill('SIGTERM');

    let killedWhileSending = 0;
    for (let round = 1; round <= CRASH_ROUNDS; round++) {
      service = await startServe(env);
      // Every round brings news: a new incident, and the previous one resolved.
      const previous = incidents.at(-1);
      if (previous) previous.status = 'resolved';
      incidents.push(rawIncident({ id: 9000 + round, title: `Crash round ${round}` }));
      await vendor.setIncidents(incidents);
      const before = receiver.received.length;
      void admin(service, 'POST', '/api/admin/poll').catch(() => {});
      if (round % 3 === 0) {
        // Somewhere in the poll itself (reading the feed, or writing events and outbox).
        await new Promise((r) => setTimeout(r, Math.random() * 150));
      } else {
        // In the middle of fan-out: once the first request of this round has arrived.
        await receiver.waitFor(before + 1, 5_000).catch(() => {});
        await new Promise((r) => setTimeout(r, Math.random() * 30));
      }
      await service.kill('SIGKILL');
      if (receiver.received.length > before) killedWhileSending++;
    }

    // A last process sends what the killed ones left, then stops cleanly.
    service = await startServe(env);
    await admin(service, 'POST', '/api/admin/poll');
    for (let i = 0; i < 200; i++) {
      const pending = await admin(service, 'GET', '/api/deliveries?state=pending&limit=1');
      if (pending.deliveries.length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await service.kill('SIGTERM');

    const db = new Database(database, { readonly: true });
    const rows = db.prepare('SELECT key, state FROM deliveries').all() as { key: string; state: string }[];
    const newsEvents = (db.prepare('SELECT count(*) AS n FROM events WHERE backfill = 0').get() as { n: number }).n;
    db.close();

    // Every event that is news went to every subscriber: the outbox lost nothing.
    expect(rows).toHaveLength(newsEvents * SUBSCRIBERS);
    expect(rows.every((r) => r.state === 'done')).toBe(true);
    const expected = new Set(await Promise.all(rows.map((r) => webhookMessageId(r.key))));
    const received = receiver.received.map((r) => String(r.headers['webhook-id']));
    // Nothing lost, nothing unknown: the receiver, deduplicating by webhook-id, has exactly the outbox.
    expect(new Set(received)).toEqual(expected);
    // Re-sends are only the deliveries in flight at a kill (at most the deliverer's concurrency each).
    const resent = received.length - expected.size;
    expect(resent).toBeLessThanOrEqual(CRASH_ROUNDS * 16);
    console.log(`delivery crash test: ${CRASH_ROUNDS} kills (${killedWhileSending} during fan-out), ${expected.size} deliveries, ${resent} re-sent under their own webhook-id`);
    expect(killedWhileSending).toBeGreaterThan(0);
  }, 60_000 + CRASH_ROUNDS * 10_000);
});
