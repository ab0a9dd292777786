/**
 * Group subscriptions in the admin pages and the admin API through the service's app:
 * whether the directory answers and in which version, the group option of the subscription form,
 * a group's members, audit list and "Sync now", directory text escaped, and every route behind the admin token.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { signInAdmin } from '../helpers/admin-page-client.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { control, startScim } from '../sim/scim-helpers.ts';

const HOSTILE = '<script>alert(1)</script>';

describe('admin directory pages', () => {
  let smtp: TestSmtp;
  const started: TestApp[] = [];
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });

  async function appWith(directory: RunningSimulatedScim | null): Promise<TestApp> {
    const env: Record<string, string> = { SMTP_URL: smtp.url, MAIL_FROM: 'status@example.test' };
    if (directory) Object.assign(env, { SCIM_URL: directory.url, SCIM_TOKEN: directory.token });
    const app = await startTestApp(NO_FEED_URL, { env });
    started.push(app);
    return app;
  }

  it('says the directory is not configured, and refuses group subscriptions then', async () => {
    const app = await appWith(null);
    const admin = await signInAdmin(app);
    const page = await admin.get('/admin/directory');
    expect(page.status).toBe(200);
    expect(page.html).toContain('not configured');
    const refused = await app.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
    expect(refused).toMatchObject({ status: 409, body: { error: 'directory_disabled' } });
  });

  it('says which version the directory speaks, and when it does not answer as the spec says', async () => {
    const directory = await startScim({ clock: Date.now });
    const admin = await signInAdmin(await appWith(directory));
    expect((await admin.get('/admin/directory')).html).toContain('answers, speaking SCIM 2.0 (/scim/v2)');
    await control(directory, 'PUT', '/versions', { v2: false });
    expect((await admin.get('/admin/directory')).html).toContain('answers, speaking SCIM 2.0');
    // A new app asks again: the first answer is kept for the process.
    const fresh = await signInAdmin(await appWith(directory));
    expect((await fresh.get('/admin/directory')).html).toContain('answers, speaking SCIM 1.1 (/scim/v1)');
    await control(directory, 'PUT', '/workspace', { refuse: 'plus_teams_only' });
    const failing = await signInAdmin(await appWith(directory));
    expect((await failing.get('/admin/directory')).html).toContain('plus_teams_only (SCIM only on Business+ and Enterprise plans)');
  });

  it('creates a group subscription from the form, shows its members and audit list, and syncs on the button', async () => {
    const directory = await startScim({ clock: Date.now });
    const seed = await control(directory, 'POST', '/seed', { users: 6, groups: [{ displayName: HOSTILE, members: 3 }] });
    const app = await appWith(directory);
    const admin = await signInAdmin(app);
    const form = await admin.get('/admin/new-subscription?channel=email');
    expect(form.html).toContain('name="group"');
    const created = await admin.post('/admin/new-subscription', { channel: 'email', email: '', group: HOSTILE, timezone: 'UTC' });
    expect(created.status).toBe(201);
    const list = (await app.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string; group: string }[];
    expect(list).toEqual([expect.objectContaining({ group: seed.groups[0].id })]);
    const id = list[0]!.id;

    const overview = await admin.get('/admin/directory');
    expect(overview.html).not.toContain(HOSTILE);
    expect(overview.html).toContain('&lt;script&gt;');
    expect(overview.html).toContain(`href="/admin/directory/${id}"`);

    await control(directory, 'POST', `/groups/${seed.groups[0].id}/members`, { add: [seed.lastUserId] });
    const before = await admin.get(`/admin/directory/${id}`);
    expect(before.html).toContain('User 00003');
    expect(before.html).not.toContain('User 00006');
    expect(before.html).toContain('Sync now');
    // Three members in the group as synced: counted in words, not "3 member(s)".
    expect(before.html).toContain('3 members as last synced');
    const synced = await admin.post(`/admin/directory/${id}/sync`, {});
    expect(synced.status).toBe(303);
    expect(synced.headers.get('location')).toBe(`/admin/directory/${id}?done=synced`);
    const after = await admin.get(`/admin/directory/${id}?done=synced`);
    expect(after.html).toContain('User 00006');
    expect(after.html).toContain('4 members as last synced');
    expect(after.html).toContain('Synced: the member list');
    expect(after.html).toMatch(/<td>added<\/td>\s*<td>User 00006/);

    // The edit form keeps the group and shows it.
    const edit = await admin.get(`/admin/subscriptions/${id}`);
    expect(edit.html).toContain(`directory group <code>${seed.groups[0].id}</code>`);
    const saved = await admin.post(`/admin/subscriptions/${id}`, { timezone: 'Europe/Berlin' });
    expect(saved.status).toBe(303);
    expect((await app.admin('GET', `/api/subscriptions/${id}`)).body.subscription).toMatchObject({ group: seed.groups[0].id, timezone: 'Europe/Berlin' });
  });

  it('says on the group’s page that the directory no longer has the group, and keeps the subscription', async () => {
    const directory = await startScim({ clock: Date.now });
    const seed = await control(directory, 'POST', '/seed', { users: 4, groups: [{ displayName: 'Ops', members: 2 }] });
    await control(directory, 'PUT', '/rfc', { trailingSlash404: true, plainErrors: true });
    const app = await appWith(directory);
    const admin = await signInAdmin(app);
    const created = await app.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
    expect(created.status).toBe(201);
    const id: string = created.body.subscription.id;
    await control(directory, 'DELETE', `/groups/${seed.groups[0].id}`);
    expect((await admin.post(`/admin/directory/${id}/sync`, {})).status).toBe(303);
    const page = await admin.get(`/admin/directory/${id}`);
    expect(page.html).toContain('group deleted');
    expect(page.html).toContain('The directory no longer has this group: its members get no alerts.');
    expect((await app.admin('GET', `/api/subscriptions/${id}`)).status).toBe(200);
  });

  it('pages a big group’s members with a signed cursor that fits only that group', async () => {
    const directory = await startScim({ clock: Date.now });
    await control(directory, 'POST', '/seed', {
      users: 160,
      groups: [
        { displayName: 'Big', members: 150 },
        { displayName: 'Small', members: 2 },
      ],
    });
    const app = await appWith(directory);
    const admin = await signInAdmin(app);
    const big = (await app.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Big' })).body.subscription.id as string;
    const small = (await app.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Small' })).body.subscription.id as string;

    // The members table only: the audit list below it names members too.
    const memberNames = (html: string) => [...(html.split('Audit list')[0] ?? '').matchAll(/<td>(User \d{5})<\/td>/g)].map((m) => m[1]);
    const first = await admin.get(`/admin/directory/${big}`);
    expect(memberNames(first.html)).toEqual(Array.from({ length: 100 }, (_, i) => `User ${String(i + 1).padStart(5, '0')}`));
    const next = /href="([^"]*\?cursor=[^"]+)">Next members/.exec(first.html)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toBeDefined();
    const second = await admin.get(next!);
    expect(second.status).toBe(200);
    expect(memberNames(second.html)).toEqual(Array.from({ length: 50 }, (_, i) => `User ${String(i + 101).padStart(5, '0')}`));
    expect(second.html).not.toContain('Next members');

    // Edited, or carried to another group's page: refused, never read as a position.
    const cursor = new URL(next!, 'http://x').searchParams.get('cursor')!;
    expect((await admin.get(`/admin/directory/${small}?cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
    expect((await admin.get(`/admin/directory/${big}?cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`)).status).toBe(400);
    // The API's pages are bound to their group too.
    const apiPage = await app.admin('GET', `/api/subscriptions/${big}/members?limit=2`);
    const apiCursor = apiPage.body.response_metadata.next_cursor as string;
    expect((await app.admin('GET', `/api/subscriptions/${big}/members?limit=2&cursor=${encodeURIComponent(apiCursor)}`)).status).toBe(200);
    const foreign = await app.admin('GET', `/api/subscriptions/${small}/members?cursor=${encodeURIComponent(apiCursor)}`);
    expect([foreign.status, foreign.body.error]).toEqual([400, 'invalid_cursor']);
    // The old raw position is no longer a way in.
    expect(memberNames((await admin.get(`/admin/directory/${big}?after=${encodeURIComponent('~')}`)).html)[0]).toBe('User 00001');
  });

  it('shows a directory’s lone surrogates as one U+FFFD each, the same in the API and the admin pages', async () => {
    // JSON may carry half a surrogate pair ("\ud800"), which UTF-8 cannot: the directory's text is
    // made well formed where it is read, so the store, the API and the pages hold the same text.
    const directory = await startScim({ clock: Date.now });
    const seed = await control(directory, 'POST', '/seed', { users: 2, groups: [] });
    const group = await control(directory, 'POST', '/groups', { displayName: 'Ops \udbff team', members: [seed.firstUserId, seed.lastUserId] });
    // The simulator, as the vendor, keeps only letters and digits in names it is given: a directory
    // that sends half a pair anyway answers its user list with them.
    const list = await (
      await fetch(`${directory.url}/scim/v2/Users?startIndex=1&count=100`, { headers: { Authorization: `Bearer ${directory.token}` } })
    ).json();
    const users = list.Resources as { displayName: string; userName: string }[];
    users[0]!.displayName = 'Ann \ud800 Lee';
    // No displayName: the userName is shown.
    users[1]!.displayName = '';
    users[1]!.userName = 'Bob \udfff';
    await control(directory, 'POST', '/faults', { target: 'users.list', kind: 'body', times: 1, body: JSON.stringify(list) });
    const app = await appWith(directory);
    const admin = await signInAdmin(app);
    const created = await app.admin('POST', '/api/subscriptions', { channel: 'email', group: group.id });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.subscription.id;

    const members = await app.admin('GET', `/api/subscriptions/${id}/members`);
    expect(members.body.group.display_name).toBe('Ops \ufffd team');
    expect(members.body.members.map((m: { display_name: string }) => m.display_name).sort()).toEqual(['Ann \ufffd Lee', 'Bob \ufffd']);
    const audit = await app.admin('GET', `/api/subscriptions/${id}/audit?limit=20`);
    expect(audit.body.audit.map((e: { display_name: string }) => e.display_name).sort()).toEqual(['Ann \ufffd Lee', 'Bob \ufffd']);
    const page = await admin.get(`/admin/directory/${id}`);
    expect(page.html.match(/Ann \ufffd+ Lee/g)).toEqual(['Ann \ufffd Lee', 'Ann \ufffd Lee']);
    expect(page.html.match(/Bob \ufffd+/g)).toEqual(['Bob \ufffd', 'Bob \ufffd']);
    expect(page.html).toContain('Ops \ufffd team');
    expect((await admin.get('/admin/directory')).html).toContain('Ops \ufffd team');
  });

  it('keeps the group endpoints behind the admin token, and answers 404 for what is not a group subscription', async () => {
    const directory = await startScim({ clock: Date.now });
    await control(directory, 'POST', '/seed', { users: 2, groups: [{ displayName: 'Ops', members: 2 }] });
    const app = await appWith(directory);
    const { body } = await app.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Ops' });
    for (const [method, path] of [
      ['GET', `/api/subscriptions/${body.subscription.id}/members`],
      ['GET', `/api/subscriptions/${body.subscription.id}/audit`],
      ['POST', `/api/subscriptions/${body.subscription.id}/sync`],
    ] as const) {
      const res = await app.fetch(app.url + path, { method });
      expect(res.status, path).toBe(401);
    }
    const plain = await app.admin('POST', '/api/subscriptions', { channel: 'email', email: 'ops@example.test' });
    expect((await app.admin('GET', `/api/subscriptions/${plain.body.subscription.id}/members`)).status).toBe(404);
    expect((await app.admin('POST', '/api/subscriptions/sub_nothing/sync')).status).toBe(404);
    const members = await app.admin('GET', `/api/subscriptions/${body.subscription.id}/members?limit=1`);
    expect(members.body.members).toHaveLength(1);
    const next = await app.admin('GET', `/api/subscriptions/${body.subscription.id}/members?limit=1&cursor=${members.body.response_metadata.next_cursor}`);
    expect(next.body.members).toHaveLength(1);
    expect(next.body.members[0].user_id).not.toBe(members.body.members[0].user_id);
    expect(next.body.response_metadata.next_cursor).toBe('');
  });
});
