/**
 * SIGKILL of the service while it mails a directory group, over and over: in the end every member
 * has each incident's mail at least once, a mail sent twice is only one in flight at a kill, and a
 * second copy carries the first one's Message-ID, so the member's client can drop it.
 * CRASH_ROUNDS=20 npx vitest run test/integration/group-mail-crash.test.ts runs the long version.
 */
import { join } from 'node:path';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { runCli } from '../helpers/cli.ts';
import { countOkPolls } from '../helpers/crash-oracle.ts';
import { serveEnv, serveUntilSettled, spawnAndKill, spawnServe } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { control, startScim } from '../sim/scim-helpers.ts';

const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const MEMBERS = 150;
/** What the README promises: a kill sends again at most the mails in flight, 8 at once per group delivery. */
const IN_FLIGHT_PER_KILL = 8;

const recipientOf = (mail: ParsedMail) => (mail.to && !Array.isArray(mail.to) ? (mail.to.value[0]?.address ?? '') : '');

/** The vendor's incidents after `step` new ones: each step brings one incident, so one group mail. */
function incidents(step: number): RawIncident[] {
  return Array.from({ length: step + 1 }, (_, i) => rawIncident({ id: 7000 + i, title: `Crash incident ${i}` }));
}

describe('group mail durability', () => {
  let vendor: TestVendor;
  let smtp: TestSmtp;
  let directory: RunningSimulatedScim;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    smtp = await startSmtp();
    directory = await startScim({ clock: Date.now });
  });
  afterAll(async () => {
    await smtp.close();
    await vendor.close();
  });

  it(
    `mails every member at least once, and again only the mails in flight under the same Message-ID, across ${CRASH_ROUNDS} SIGKILLs`,
    async () => {
      await control(directory, 'POST', '/seed', { users: MEMBERS, groups: [{ displayName: 'Everyone', members: MEMBERS }] });
      const database = join(tempDir(), 'archive.db');
      const env = serveEnv(database, vendor.url, {
        POLL_ON_START: 'true',
        POLL_SCHEDULE: '0 0 1 1 *',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'statuswatch <status@example.test>',
        PUBLIC_URL: 'https://status.example.test',
        SECRET_KEY: '0123456789abcdef'.repeat(4),
        SCIM_URL: directory.url,
        SCIM_TOKEN: directory.token,
        // The list read at subscribe time stays fresh through the test: no sync inside a round.
        SCIM_SYNC_SECONDS: '86400',
      });
      // Seeded before the crashes (an empty archive's first poll is history, never notified).
      let step = 0;
      await vendor.setIncidents(incidents(step));
      expect((await runCli(['poll'], env)).code).toBe(0);
      const setup = await spawnServe({ ...env, POLL_ON_START: 'false' }).started;
      try {
        const created = await setup.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Everyone' });
        expect(created.ok, JSON.stringify(created)).toBe(true);
      } finally {
        await setup.kill('SIGTERM');
      }

      let killedWhileSending = 0;
      for (let round = 1; round <= CRASH_ROUNDS; round++) {
        await vendor.setIncidents(incidents(++step));
        const before = smtp.received.length;
        // Killed once this round's poll committed and its mail is under way, at a random point of it.
        const outcome = await spawnAndKill(env, {
          afterCommit: {
            wait: async () => {
              await waitFor(() => smtp.received.length > before, 10_000);
              await new Promise((r) => setTimeout(r, Math.random() * 200));
            },
          },
        });
        expect(outcome.committed).toBe(true);
        if (smtp.received.length > before && smtp.received.length - before < MEMBERS) killedWhileSending++;
      }
      const okBefore = countOkPolls(database);
      await serveUntilSettled(env, () => countOkPolls(database) > okBefore, 60_000);

      // Each incident of a round, to each member: at least once.
      const copies = new Map<string, ParsedMail[]>();
      for (const mail of smtp.received) {
        const key = `${recipientOf(mail)}|${mail.subject}`;
        copies.set(key, [...(copies.get(key) ?? []), mail]);
      }
      const missing: string[] = [];
      for (let i = 1; i <= step; i++) {
        for (let m = 1; m <= MEMBERS; m++) {
          const key = `user${String(m).padStart(5, '0')}@example.com|`;
          if (![...copies.keys()].some((k) => k.startsWith(key) && k.endsWith(`Crash incident ${i}`))) missing.push(`${key}${i}`);
        }
      }
      const duplicates = smtp.received.length - copies.size;
      // A mail sent again is the same mail: one Message-ID for all its copies, none shared with another.
      const idsOf = [...copies.values()].map((list) => new Set(list.map((m) => m.messageId)));
      const underSeveralIds = idsOf.filter((ids) => ids.size !== 1).length;
      console.log(
        `group mail crash test: ${CRASH_ROUNDS} kills (${killedWhileSending} while mailing), ${step} incidents to ${MEMBERS} members, ` +
          `${smtp.received.length} mails for ${copies.size} member-incidents: ${duplicates} sent again ` +
          `(${(duplicates / CRASH_ROUNDS).toFixed(1)} a kill), ${underSeveralIds} member-incidents under more than one Message-ID`,
      );
      expect(missing).toEqual([]);
      expect(copies.size).toBe(step * MEMBERS);
      expect(underSeveralIds).toBe(0);
      expect(new Set(idsOf.map((ids) => [...ids][0])).size).toBe(copies.size);
      expect(duplicates).toBeLessThanOrEqual(CRASH_ROUNDS * IN_FLIGHT_PER_KILL);
      expect(killedWhileSending).toBeGreaterThan(0);
    },
    60_000 + CRASH_ROUNDS * 20_000,
  );
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
