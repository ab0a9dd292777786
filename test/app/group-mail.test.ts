/**
 * A group delivery's mail through a real SMTP server: one mail per receiving member, recorded per
 * member under the delivery's id, so a second attempt (a retry, or a run after a crash) mails only
 * those not yet sent; a refusal for good ends that member's turn, a temporary one is retried.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createScimClient } from '../../src/adapters/fetch-scim-client.ts';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { createSqliteGroupDirectoryStore } from '../../src/adapters/sqlite-scim-groups.ts';
import { createGroupMail } from '../../src/app/group-mail.ts';
import type { SqlValue } from '../../src/adapters/sqlite-connection.ts';
import { createGroupSync } from '../../src/app/group-sync.ts';
import type { Mailer } from '../../src/core/ports.ts';
import { webhookMessageId } from '../../src/core/fanout.ts';
import { memberSendsKeyOf } from '../../src/core/scim-group.ts';
import { createSecretBox, generateSecretKey } from '../../src/core/secret-box.ts';
import { renderEmail } from '../../src/core/email-render.ts';
import { incidentUpdate } from '../fixtures/message-fixtures.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { control, startScim } from '../sim/scim-helpers.ts';

const SUB = 'sub_ops';
const render = () => ({ subject: 'Incident', text: 'text', html: '<p>html</p>', headers: {} });

describe('group mail', () => {
  let smtp: TestSmtp;
  let archive: TempArchive;
  let mailer: Mailer;
  beforeEach(async () => {
    smtp = await startSmtp();
    archive = openTempArchive();
    mailer = createSmtpMailer({ smtpUrl: smtp.url, from: 'status@example.test' });
  });
  afterEach(async () => {
    mailer.close();
    await smtp.close();
    archive.remove();
  });

  /** Rows the group store's reads returned: what a turn of a big delivery must keep small. */
  let rowsRead = 0;
  async function groupOf(emails: string[], maxSendsPerAttempt?: number) {
    const sim = await startScim({ clock: Date.now });
    const ids: string[] = [];
    for (const [i, email] of emails.entries()) ids.push((await control(sim, 'POST', '/users', { userName: `member${i}`, email })).id);
    const group = await control(sim, 'POST', '/groups', { displayName: 'Ops', members: ids });
    rowsRead = 0;
    const connection = archive.connection;
    const store = createSqliteGroupDirectoryStore({
      ...connection,
      runAtomically: (list) => connection.runAtomically(list),
      rows: (sql, params) => connection.rows(sql, params),
      async all<T>(sql: string, params: readonly SqlValue[]) {
        const rows = await connection.all<T>(sql, params);
        rowsRead += rows.length;
        return rows;
      },
    });
    const clock = { now: Date.now };
    const logger = createConsoleLogger({ level: 'error', format: 'json', write: () => {} });
    await archive.store.createSubscription(storedSubscription(SUB, { channel: 'email', target: `scim-group:${group.id}` }, Date.now()));
    await store.linkGroup({ subscriptionId: SUB, groupId: group.id, groupName: 'Ops' });
    const sync = createGroupSync({ store, directory: createScimClient({ baseUrl: sim.url, token: sim.token, clock }), clock, logger, syncSeconds: 300 });
    const mail = createGroupMail({
      store,
      sync,
      mailer,
      secrets: await createSecretBox(generateSecretKey()),
      clock,
      logger,
      publicUrl: 'https://status.example.test',
      sanitizeHtml: (h) => h,
      maxSendsPerAttempt,
    });
    return { store, mail, sync, ids, sim, subscription: (await archive.store.getSubscription(SUB))! };
  }

  /** A group whose list was read: alerts go out at once. */
  async function syncedGroupOf(emails: string[], maxSendsPerAttempt?: number) {
    const group = await groupOf(emails, maxSendsPerAttempt);
    expect(await group.sync.syncGroup(SUB)).toMatchObject({ outcome: 'ok' });
    return group;
  }

  it('mails each member once per delivery, however often the delivery is attempted', async () => {
    const { mail, sync, subscription, store } = await groupOf(['a@example.test', 'b@example.test', 'c@example.test']);
    const deliveryKey = 'delivery_1';
    // The first attempt waits for the never-read list, synced in the background; the next mails everyone.
    expect(await mail.send(subscription, render, { deliveryKey })).toMatchObject({ kind: 'held', called: false });
    expect(smtp.received).toHaveLength(0);
    expect(await sync.syncGroup(SUB)).toMatchObject({ outcome: 'ok', members: 3 });
    expect(await mail.send(subscription, render, { deliveryKey })).toMatchObject({ kind: 'sent' });
    expect(smtp.received).toHaveLength(3);
    expect(await mail.send(subscription, render, { deliveryKey })).toMatchObject({
      kind: 'sent',
      excerpt: '0 members sent, 0 refused; 3 sent and 0 refused in all',
    });
    expect(smtp.received).toHaveLength(3);
    expect(await store.memberSends(await memberSendsKeyOf('delivery_1'))).toHaveLength(3);
    // Another delivery (another incident or poll) is mailed again.
    await mail.send(subscription, render, { deliveryKey: 'delivery_2' });
    expect(smtp.received).toHaveLength(6);
  });

  it('goes on with a delivery begun before its sends were keyed by the delivery key, mailing only the members not yet mailed', async () => {
    const { mail, subscription, store, ids } = await syncedGroupOf(['a@example.test', 'b@example.test', 'c@example.test']);
    // A process before this one recorded its sends under the delivery's webhook-id, then stopped.
    await store.recordMemberSends(await webhookMessageId('delivery_1'), [{ userId: ids[0]!, state: 'sent' }], Date.now());
    expect(await mail.send(subscription, render, { deliveryKey: 'delivery_1' })).toMatchObject({
      kind: 'sent',
      excerpt: '2 members sent, 0 refused; 3 sent and 0 refused in all',
    });
    expect(smtp.received.map((m) => (m.to && !Array.isArray(m.to) ? m.to.text : '')).sort()).toEqual(['b@example.test', 'c@example.test']);
  });

  it('never reports a delivery done while the group’s members were never read', async () => {
    const { mail, sync, subscription, sim } = await groupOf(['a@example.test', 'b@example.test']);
    // The directory fails the first sync: there is no member list to mail yet.
    await control(sim, 'POST', '/faults', { target: '*', kind: 'status', status: 500 });
    const deliveryKey = 'delivery_unread';
    const alertAtMs = Date.now();
    expect(await mail.send(subscription, render, { deliveryKey, alertAtMs })).toMatchObject({ kind: 'held', called: false });
    expect(await sync.syncGroup(SUB)).toMatchObject({ outcome: 'failed' });
    const failed = await mail.send(subscription, render, { deliveryKey, alertAtMs });
    expect(failed).toMatchObject({ kind: 'retry' });
    expect(failed.kind === 'retry' && failed.error).toContain('never been read');
    expect(smtp.received).toHaveLength(0);
    // Once the directory answers and a sync reads the list, the next attempt mails everyone.
    await control(sim, 'DELETE', '/faults');
    expect(await sync.syncGroup(SUB)).toMatchObject({ outcome: 'ok' });
    expect(await mail.send(subscription, render, { deliveryKey, alertAtMs })).toMatchObject({ kind: 'sent' });
    expect(smtp.received).toHaveLength(2);
  });

  it('retries only the member whose mail was refused for now; one refused for good is not retried', async () => {
    const { mail, subscription, store, ids } = await syncedGroupOf(['a@example.test', 'rcpt451@example.test', 'rcpt550@example.test']);
    const deliveryKey = 'delivery_1';
    const first = await mail.send(subscription, render, { deliveryKey });
    expect(first).toMatchObject({ kind: 'retry' });
    expect(first.kind === 'retry' && first.error).toContain(`1 of 3 members not sent yet (retried later): ${ids[1]}`);
    expect(smtp.received).toHaveLength(1);
    expect((await store.memberSends(await memberSendsKeyOf('delivery_1'))).sort((a, b) => a.userId.localeCompare(b.userId))).toEqual([
      { userId: ids[0], state: 'sent' },
      { userId: ids[2], state: 'refused' },
    ]);
    const second = await mail.send(subscription, render, { deliveryKey });
    expect(second.excerpt).toBe('0 members sent, 0 refused; 1 sent and 1 refused in all');
    expect(smtp.received).toHaveLength(1);
  });

  it('sends a big group over several attempts when one attempt is bounded, each going on at once', async () => {
    const { mail, subscription } = await syncedGroupOf(['a@example.test', 'b@example.test', 'c@example.test', 'd@example.test', 'e@example.test'], 2);
    const deliveryKey = 'delivery_1';
    const first = await mail.send(subscription, render, { deliveryKey });
    // The first turn is logged as an attempt (mail went out); the turns after it are not, so a
    // group of any size adds one row to its delivery's attempts.
    expect(first).toMatchObject({ kind: 'held', called: true, error: 'more members left for the next attempt (at most 2 a turn)' });
    expect(smtp.received).toHaveLength(2);
    expect(await mail.send(subscription, render, { deliveryKey })).toMatchObject({ kind: 'held', called: false });
    expect(await mail.send(subscription, render, { deliveryKey })).toMatchObject({
      kind: 'sent',
      excerpt: '1 member sent, 0 refused; 5 sent and 0 refused in all',
    });
    expect(new Set(smtp.received.map((m) => (m.to && !Array.isArray(m.to) ? m.to.text : ''))).size).toBe(5);
  });

  it('reads about one turn of members a turn, however big the group and however far the delivery got', async () => {
    const emails = Array.from({ length: 24 }, (_, i) => `m${i}@example.test`);
    const { mail, subscription } = await syncedGroupOf(emails, 3);
    const deliveryKey = 'delivery_1';
    await mail.send(subscription, render, { deliveryKey });
    const perTurn: number[] = [];
    for (let turn = 0; turn < 6; turn += 1) {
      rowsRead = 0;
      expect(await mail.send(subscription, render, { deliveryKey })).toMatchObject({ kind: 'held', called: false });
      perTurn.push(rowsRead);
    }
    // The link, whether the delivery began, and the turn's 3 members plus one: 6 rows, not 24 + the sends so far.
    expect(perTurn).toEqual([6, 6, 6, 6, 6, 6]);
    expect(smtp.received).toHaveLength(21);
  });

  it('tells a member who sets what the group receives, and links only the unsubscribe to their token', async () => {
    const { mail, subscription } = await syncedGroupOf(['a@example.test']);
    const update = incidentUpdate(rawIncident({ id: 7, title: 'Search is slow' }));
    await mail.send(subscription, (context) => renderEmail(update, context), { deliveryKey: 'd' });
    const [received] = smtp.received;
    const unsubscribe = /Unsubscribe: (\S+)/.exec(received!.text ?? '')?.[1];
    expect(unsubscribe).toMatch(/^https:\/\/status\.example\.test\/.+token=/);
    // No link says "Change what you receive" and then unsubscribes: a member has no page to change what the group gets.
    expect(received!.text).not.toContain('Change what you receive');
    expect(received!.html).not.toContain('Change what you receive');
    expect(received!.text).toContain(
      '-- \nYou get this as a member of a directory group; what the group receives is set by your administrator.\nUnsubscribe: ',
    );
    expect(received!.html).toContain('You get this as a member of a directory group; what the group receives is set by your administrator. · <a href=');
  });

  it('skips a muted member, and opens only its own tokens', async () => {
    const { mail, subscription, store, ids } = await syncedGroupOf(['a@example.test', 'b@example.test']);
    await mail.send(subscription, render, { deliveryKey: '1' });
    expect(await store.muteMember(SUB, ids[0]!, Date.now())).toBe(true);
    await mail.send(subscription, render, { deliveryKey: '2' });
    const to = smtp.received.map((m) => (m.to && !Array.isArray(m.to) ? m.to.text : ''));
    expect(to.slice(0, 2).sort()).toEqual(['a@example.test', 'b@example.test']);
    expect(to.slice(2)).toEqual(['b@example.test']);
    expect(await mail.openMemberToken('v1.00000000.AAAA.BBBB')).toBeNull();
    expect(await mail.openMemberToken('not a token')).toBeNull();
  });
});
