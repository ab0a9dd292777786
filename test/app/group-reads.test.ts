/**
 * A group subscription's members and audit list as every face shows them, against the simulated
 * SCIM directory over HTTP and a real SQLite file: members by user id and the audit list newest
 * first, a page at a time, with cursors that fit one list of one group; the admin API and the
 * admin page of the group show the same members and the same audit entries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { groupAuditPage, groupMemberPage, type GroupReadDeps } from '../../src/app/group-reads.ts';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { type AppFaces, appFaces } from '../helpers/app-faces.ts';
import { startSmtp } from '../helpers/smtp.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { control, startScim } from '../sim/scim-helpers.ts';

const MAIL_FROM = 'status@example.test';
const userName = (n: number) => `User ${String(n).padStart(5, '0')}`;

describe('a group subscription’s members and audit list', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Two groups in the directory, Ops (5 members) and Dev (2), each subscribed to and synced once. */
  async function twoGroups(): Promise<{ faces: AppFaces; reads: GroupReadDeps; ops: string; dev: string; directory: RunningSimulatedScim }> {
    const directory = await startScim({ clock: Date.now });
    cleanups.push(() => directory.close());
    await control(directory, 'POST', '/seed', {
      users: 8,
      groups: [
        { displayName: 'Ops', members: 5 },
        { displayName: 'Dev', members: 2 },
      ],
    });
    const archive: TempArchive = openTempArchive();
    cleanups.push(() => archive.remove());
    const smtp = await startSmtp();
    cleanups.push(() => smtp.close());
    const faces = await appFaces(archive, {
      env: { SCIM_URL: directory.url, SCIM_TOKEN: directory.token, SMTP_URL: smtp.url, MAIL_FROM: MAIL_FROM },
      mailer: createSmtpMailer({ smtpUrl: smtp.url, from: MAIL_FROM }),
    });
    const subscribe = async (group: string) => {
      const created = await faces.api<{ subscription: { id: string } }>('/api/subscriptions', { channel: 'email', group });
      expect(created.status).toBe(201);
      return created.body.subscription.id;
    };
    const ops = await subscribe('Ops');
    const dev = await subscribe('Dev');
    return { faces, reads: { store: faces.deps.groups!.store, cursors: faces.deps.cursors }, ops, dev, directory };
  }

  it('pages the members by user id, with cursors that fit only that list of that group', async () => {
    const { reads, ops, dev } = await twoGroups();
    const first = await groupMemberPage(reads, ops, { list: 'members', cursor: undefined, limit: 3 });
    expect(first.page.map((m) => m.displayName)).toEqual([1, 2, 3].map(userName));
    const second = await groupMemberPage(reads, ops, { list: 'members', cursor: first.next, limit: 3 });
    expect(second.page.map((m) => m.displayName)).toEqual([4, 5].map(userName));
    expect(second.next).toBe('');
    await expect(groupMemberPage(reads, dev, { list: 'members', cursor: first.next, limit: 3 })).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(groupMemberPage(reads, ops, { list: 'admin-members', cursor: first.next, limit: 3 })).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(groupAuditPage(reads, ops, { list: 'audit', cursor: first.next, limit: 3 })).rejects.toMatchObject({ code: 'invalid_cursor' });
  });

  it('pages the audit list newest first, to its end', async () => {
    const { reads, ops } = await twoGroups();
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const { page, next } = await groupAuditPage(reads, ops, { list: 'audit', cursor, limit: 2 });
      seen.push(...page.map((e) => e.id));
      cursor = next || undefined;
    } while (cursor);
    // The first sync added the five members.
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
  });

  it('the admin API and the admin page show the same members and the same audit entries', async () => {
    const { faces, ops } = await twoGroups();
    const members = await faces.api<{ members: { display_name: string }[] }>(`/api/subscriptions/${ops}/members`);
    const audit = await faces.api<{ audit: { change: string; display_name: string | null }[] }>(`/api/subscriptions/${ops}/audit`);
    expect(members.body.members.map((m) => m.display_name)).toEqual([1, 2, 3, 4, 5].map(userName));
    const page = await faces.admin.get(`/admin/directory/${ops}`);
    expect(page.status).toBe(200);
    const [membersTable = '', auditTable = ''] = page.html.split('Audit list');
    expect([...membersTable.matchAll(/<td>(User \d{5})<\/td>/g)].map((m) => m[1])).toEqual(members.body.members.map((m) => m.display_name));
    const shownAudit = [...auditTable.matchAll(/<td>([a-z_]+)<\/td>\s*<td>(User \d{5})/g)].map((m) => ({ change: m[1], display_name: m[2] }));
    expect(shownAudit.length).toBeGreaterThanOrEqual(5);
    expect(shownAudit).toEqual(audit.body.audit.map((e) => ({ change: e.change, display_name: e.display_name })));
  });
});
