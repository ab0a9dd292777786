/**
 * Group subscriptions end to end: the real Node service syncs a group from the simulated
 * SCIM directory over HTTP and mails each member through a real SMTP server; people join, leave and
 * are deactivated between incidents and receive exactly what they should, and a member's one-click
 * unsubscribe mutes that member only.
 */
import type { ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SCIM_PAGE_SIZE } from '../../src/core/scim-group.ts';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { HOSTILE_ADDRESSES } from '../fixtures/hostile-addresses.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { control, PATCH_OP, scim, startScim } from '../sim/scim-helpers.ts';

const SYNC_SECONDS = 10;
/** One more member than the service asks the directory for in one page. */
const MEMBERS = SCIM_PAGE_SIZE + 1;
const userName = (n: number) => `user${String(n).padStart(5, '0')}`;

function header(mail: ParsedMail, name: string): string | undefined {
  // Long headers are folded over several lines.
  return mail.headerLines
    .find((h) => h.key === name)
    ?.line.replace(/\r?\n[ \t]+/g, ' ')
    .replace(/^[^:]+:\s*/, '');
}

const recipients = (mails: readonly ParsedMail[]) =>
  mails.flatMap((m) => (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).flatMap((a) => a.value.map((v) => v.address ?? ''))).sort();

describe('group subscriptions', () => {
  let vendor: TestVendor;
  let smtp: TestSmtp;
  let directory: RunningSimulatedScim;
  let service: TestService;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  let incidentId = 100;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
    await vendor.close();
  });

  beforeEach(async () => {
    offsetMs = 0;
    smtp.received.length = 0;
    await vendor.setIncidents([]);
    // The directory's rate-limit buckets refill on the real clock, as the vendor's do.
    directory = await startScim({ clock: Date.now });
    service = await startTestService(vendor.url, { clock, env: serviceEnv() });
    expect((await service.poll()).outcome).toBe('ok');
  });
  afterEach(async () => {
    await service.close();
  });

  /** The service's settings: mail through the test SMTP server, groups from the simulated directory. */
  function serviceEnv(): Record<string, string> {
    return {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'statuswatch <status@example.test>',
      PUBLIC_URL: 'https://status.example.test',
      SCIM_URL: directory.url,
      SCIM_TOKEN: directory.token,
      SCIM_SYNC_SECONDS: String(SYNC_SECONDS),
      WEBHOOK_ALLOW_PRIVATE: 'true',
    };
  }

  /** A new incident, polled: its deliveries are written and the deliverer is told. */
  async function incidentPolled(): Promise<void> {
    incidentId += 1;
    await vendor.setIncidents([rawIncident({ id: incidentId, title: `Incident ${incidentId}` })]);
    expect((await service.poll()).outcome).toBe('ok');
  }

  /** A new incident, polled and delivered: what every group member should be mailed about. */
  async function incident(): Promise<void> {
    await incidentPolled();
    await service.deliverNow();
  }

  it('mails every active member of a group larger than a page of the SCIM reads, read over many pages, and follows joins, leaves and deactivations', async () => {
    const seed = await control(directory, 'POST', '/seed', { users: MEMBERS + 100, groups: [{ displayName: 'On call', members: MEMBERS }] });
    const groupId: string = seed.groups[0].id;
    // The directory answers short pages: the client must page by totalResults.
    await control(directory, 'PUT', '/short-pages', { users: 300 });
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'On call', timezone: 'America/Los_Angeles' });
    expect(created.status).toBe(201);
    expect(created.body.subscription).toMatchObject({ channel: 'email', group: groupId });
    const id: string = created.body.subscription.id;

    const members = await service.admin('GET', `/api/subscriptions/${id}/members?limit=3`);
    expect(members.status).toBe(200);
    expect(members.body).toMatchObject({ total: MEMBERS, group: { id: groupId, display_name: 'On call' }, sync: { outcome: 'ok', version: 'v2' } });
    expect(members.body.members).toHaveLength(3);
    expect(members.body.response_metadata.next_cursor).not.toBe('');

    await incident();
    expect(smtp.received).toHaveLength(MEMBERS);
    const first = recipients(smtp.received);
    expect(new Set(first).size).toBe(MEMBERS);
    expect(first[0]).toBe('user00001@example.com');
    expect(first.at(-1)).toBe(`${userName(MEMBERS)}@example.com`);
    // One unsubscribe link per member.
    expect(new Set(smtp.received.map((m) => header(m, 'list-unsubscribe'))).size).toBe(MEMBERS);

    // Between incidents: one joins, one leaves, one is deactivated, and one sets a time zone of their own.
    const joiner = userName(MEMBERS + 1);
    const ids = await userIds(['user00001', 'user00002', joiner, 'user00003']);
    await control(directory, 'POST', `/groups/${groupId}/members`, { add: [ids[joiner]], remove: [ids.user00001] });
    await control(directory, 'POST', `/users/${ids.user00002}/deactivate`);
    const patched = await scim(directory, 'v2', `/Users/${ids.user00003}`, {
      method: 'PATCH',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'timezone', value: 'Asia/Tokyo' }] },
    });
    expect(patched.status).toBe(200);
    smtp.received.length = 0;
    // The list is older than SCIM_SYNC_SECONDS: the alert waits for a sync first (held, not in the round).
    offsetMs += (SYNC_SECONDS + 1) * 1000;
    await incident();
    await vi.waitFor(() => expect(smtp.received.length).toBeGreaterThanOrEqual(MEMBERS - 1), { timeout: 30_000, interval: 200 });
    const second = recipients(smtp.received);
    expect(second).toHaveLength(MEMBERS - 1);
    expect(second).not.toContain('user00001@example.com');
    expect(second).not.toContain('user00002@example.com');
    expect(second).toContain(`${joiner}@example.com`);
    const tokyo = smtp.received.find((m) => recipients([m])[0] === 'user00003@example.com')!;
    const other = smtp.received.find((m) => recipients([m])[0] === 'user00004@example.com')!;
    expect(tokyo.text).toMatch(/GMT\+9/);
    expect(other.text).toMatch(/PDT|PST/);

    // Newest first: the second sync's three entries, above the first sync's "added" for everyone.
    const audit = await service.admin('GET', `/api/subscriptions/${id}/audit?limit=3`);
    expect(audit.body.audit.map((e: { user_id: string; change: string }) => [e.user_id, e.change]).sort()).toEqual(
      [
        [ids.user00001, 'removed: left group'],
        [ids.user00002, 'removed: deactivated'],
        [ids[joiner], 'added'],
      ].sort(),
    );
  }, 120_000);

  it('syncs now on request and says what changed; a deleted group stops all mail', async () => {
    const seed = await control(directory, 'POST', '/seed', { users: 10, groups: [{ displayName: 'Support', members: 4 }] });
    const groupId: string = seed.groups[0].id;
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: groupId });
    expect(created.status).toBe(201);
    const id: string = created.body.subscription.id;
    await control(directory, 'POST', `/groups/${groupId}/members`, { add: [seed.lastUserId] });
    const synced = await service.admin('POST', `/api/subscriptions/${id}/sync`);
    expect(synced.status).toBe(200);
    expect(synced.body).toMatchObject({
      ok: true,
      outcome: 'ok',
      members: 5,
      changes: [{ user_id: seed.lastUserId, change: 'added', email: 'user00010@example.com' }],
    });
    expect((await service.admin('POST', `/api/subscriptions/${id}/sync`)).body.changes).toEqual([]);

    await control(directory, 'DELETE', `/groups/${groupId}`);
    const gone = await service.admin('POST', `/api/subscriptions/${id}/sync`);
    expect(gone.body).toMatchObject({ outcome: 'ok', group_deleted: true, members: 0 });
    expect(gone.body.changes.map((c: { change: string }) => c.change)).toEqual(Array(5).fill('removed: group deleted'));
    await incident();
    expect(smtp.received).toHaveLength(0);
  });

  it("holds a group's alert while its directory hangs, and never holds another subscription's delivery", async () => {
    const receiver = await startWebhookReceiver();
    try {
      await control(directory, 'POST', '/seed', { users: 5, groups: [{ displayName: 'Ops', members: 3 }] });
      expect((await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' })).status).toBe(201);
      expect((await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: receiver.url })).status).toBe(201);
      // The group's list is due for a sync, and its directory stops answering.
      offsetMs += (SYNC_SECONDS + 1) * 1000;
      await control(directory, 'POST', '/faults', { target: '*', kind: 'timeout' });
      for (const count of [1, 2]) {
        const startedMs = Date.now();
        await incidentPolled();
        await receiver.waitFor(count, 10_000);
        // A delivery round does not wait on the directory: each incident's webhook goes out at once.
        expect(Date.now() - startedMs).toBeLessThan(3_000);
      }
      // The group's alerts are held for its sync, not sent with a list of unknown age.
      expect(smtp.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('mutes only the member whose one-click unsubscribe was posted', async () => {
    const seed = await control(directory, 'POST', '/seed', { users: 5, groups: [{ displayName: 'Ops', members: 3 }] });
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
    const id: string = created.body.subscription.id;
    await incident();
    expect(recipients(smtp.received)).toEqual(['user00001@example.com', 'user00002@example.com', 'user00003@example.com']);
    const mail = smtp.received.find((m) => recipients([m])[0] === 'user00002@example.com')!;
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const link = /^<(.+)>$/.exec(header(mail, 'list-unsubscribe') ?? '')![1]!;
    expect(link.startsWith('https://status.example.test/unsubscribe/member?token=')).toBe(true);
    // The mail provider posts to the link on our own origin (PUBLIC_URL is only what mails show).
    const local = service.url + new URL(link).pathname + new URL(link).search;
    expect((await fetch(local)).status).toBe(200);
    const posted = await fetch(local, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(posted.status).toBe(200);
    const done = await posted.text();
    expect(done).toContain('You are unsubscribed');
    // The mute lasts while the member is in the group (README): the page says so.
    expect(done).toContain('if you leave the group and later join it again, you receive them');
    // A forged token does nothing.
    const forged = await fetch(`${service.url}/unsubscribe/member?token=v1.abc.def.ghi`, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.status).toBe(404);

    smtp.received.length = 0;
    await incident();
    expect(recipients(smtp.received)).toEqual(['user00001@example.com', 'user00003@example.com']);
    const members = await service.admin('GET', `/api/subscriptions/${id}/members`);
    expect(members.body.members.map((m: { user_id: string; muted: boolean }) => m.muted)).toEqual([false, true, false]);
    expect(seed.firstUserId).toBe(members.body.members[0].user_id);
  });

  it('mails only members with one bare address: a directory email that names others is refused and put on the audit list', async () => {
    await control(directory, 'POST', '/seed', { users: 8, groups: [{ displayName: 'Ops', members: 8 }] });
    // A directory that lies: its user list carries, for five members, a primary email that mail
    // software reads as more than one recipient (the simulator itself refuses to store these).
    const page = await scim(directory, 'v2', '/Users?startIndex=1&count=1000');
    const users = page.body.Resources as { id: string; emails: { value: string; primary: boolean }[] }[];
    HOSTILE_ADDRESSES.forEach((value, i) => {
      users[i + 3]!.emails = [{ value, primary: true }];
    });
    await control(directory, 'POST', '/faults', { target: 'users.list', kind: 'body', times: 1, body: JSON.stringify(page.body) });
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
    expect(created.status).toBe(201);
    const id: string = created.body.subscription.id;
    smtp.rcptTo.length = 0;

    await incident();
    expect(new Set(smtp.rcptTo)).toEqual(new Set(['user00001@example.com', 'user00002@example.com', 'user00003@example.com']));
    expect(recipients(smtp.received)).toEqual(['user00001@example.com', 'user00002@example.com', 'user00003@example.com']);
    const audit = await service.admin('GET', `/api/subscriptions/${id}/audit?limit=20`);
    const refused = audit.body.audit.filter((e: { change: string }) => e.change === 'refused: email not one address');
    expect(refused.map((e: { user_id: string; email: string }) => [e.user_id, e.email]).sort()).toEqual(
      HOSTILE_ADDRESSES.map((value, i) => [users[i + 3]!.id, value]).sort(),
    );
    const members = await service.admin('GET', `/api/subscriptions/${id}/members`);
    expect(members.body.members.filter((m: { receives: boolean }) => m.receives)).toHaveLength(3);
  });

  it('sends a test to the admin, never to the group: refused without ADMIN_EMAIL', async () => {
    await control(directory, 'POST', '/seed', { users: 5, groups: [{ displayName: 'Ops', members: 3 }] });
    const first = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
    const refused = await service.admin('POST', `/api/subscriptions/${first.body.subscription.id}/test`);
    expect([refused.status, refused.body.error]).toEqual([409, 'admin_email_required']);
    expect(refused.body.detail).toContain('ADMIN_EMAIL');

    const withAdmin = await startTestService(vendor.url, { clock, env: { ...serviceEnv(), ADMIN_EMAIL: 'oncall-lead@example.test' } });
    try {
      const created = await withAdmin.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
      const id: string = created.body.subscription.id;
      const tested = await withAdmin.admin('POST', `/api/subscriptions/${id}/test`);
      expect(tested.status, JSON.stringify(tested.body)).toBe(200);
      expect(tested.body.results.length).toBeGreaterThanOrEqual(5);
      expect(tested.body.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
      // One mail per event type, all to the admin, none to the three members.
      expect(recipients(smtp.received)).toEqual(Array(tested.body.results.length).fill('oncall-lead@example.test'));
      expect(smtp.received.every((m) => m.subject?.startsWith('[Test] '))).toBe(true);
      // Its links lead to the subscription's admin page: nothing in it unsubscribes the group.
      const unsubscribe = header(smtp.received[0]!, 'list-unsubscribe') ?? '';
      expect(unsubscribe).toContain(`https://status.example.test/admin/subscriptions/${id}`);
      expect(smtp.received.map((m) => m.html || '').join('')).not.toContain('/unsubscribe');
      expect((await withAdmin.admin('GET', `/api/subscriptions/${id}`)).body.subscription.status).toBe('active');
    } finally {
      await withAdmin.close();
    }
  });

  it('answers 404 for a group the directory does not have, 502 when the directory fails, 400 for a bad body', async () => {
    await control(directory, 'POST', '/seed', { users: 2, groups: [{ displayName: 'Ops', members: 1 }] });
    const missing = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Nobody here' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('group_not_found');
    await control(directory, 'PUT', '/workspace', { refuse: 'plus_teams_only' });
    const refused = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
    expect(refused.status).toBe(502);
    expect(refused.body.detail).toContain('plus_teams_only (SCIM only on Business+ and Enterprise plans)');
    const bad = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: '' });
    expect(bad.status).toBe(400);
    const both = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops', email: 'a@example.test' });
    expect(both.status).toBe(400);
    expect((await service.admin('GET', '/api/subscriptions')).body.subscriptions).toEqual([]);
  });

  async function userIds(userNames: string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const name of userNames) {
      const n = Number(name.slice(4));
      // Seeded ids follow the seed order; read them back rather than guess their shape.
      const page = await scim(directory, 'v2', `/Users?startIndex=${n}&count=1`);
      out[name] = page.body.Resources[0].id;
      expect(page.body.Resources[0].userName).toBe(name);
    }
    return out;
  }
});
