import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ParsedMail } from 'mailparser';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { classifySmtpError, createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { planPoll, type ArchivedIncident } from '../../src/core/diff.ts';
import { renderEmail, type EmailContext } from '../../src/core/email-render.ts';
import type { Mailer, OutgoingMail } from '../../src/core/ports.ts';
import { groupForMessages, type IncidentUpdate } from '../../src/core/notification-message.ts';
import { HOSTILE_ADDRESSES } from '../fixtures/hostile-addresses.ts';
import { filesIncidentResolved, one, type RawIncident } from '../fixtures/vendor-builders.ts';

function update(after: RawIncident, before?: RawIncident): IncidentUpdate {
  const archived = new Map<string, ArchivedIncident>();
  if (before) archived.set(String(before.id), { ...one(before), revision: 1, resolvedAt: null });
  const { events } = planPoll({ observed: [one(after)], archived, now: Date.UTC(2026, 9, 1, 15), backfill: false });
  return groupForMessages(events)[0]!;
}

const { active, resolved } = filesIncidentResolved(
  '<p>Uploads work again.&nbsp;<br><br>See <a href="https://slack.com/help"><span style="text-decoration: underline;">help</span></a>.</p>',
);

function context(timeZone: string): EmailContext {
  return {
    publicUrl: 'https://status.example.org',
    timeZone,
    unsubscribeUrl: 'https://status.example.org/unsubscribe?t=tok123',
    manageUrl: 'https://status.example.org/subscriptions?t=tok123',
    sanitizeHtml: sanitizeNoteHtml,
  };
}

function mailTo(to: string, timeZone = 'America/Los_Angeles'): OutgoingMail {
  return { to, ...renderEmail(update(resolved, active), context(timeZone)) };
}

function header(mail: ParsedMail, name: string): string | undefined {
  return mail.headerLines.find((h) => h.key === name.toLowerCase())?.line.replace(/^[^:]+:\s*/, '');
}

describe('createSmtpMailer against a real SMTP server', () => {
  let smtp: TestSmtp;
  let mailer: Mailer;

  beforeAll(async () => {
    smtp = await startSmtp();
    mailer = createSmtpMailer({ smtpUrl: smtp.url, from: 'statuswatch <alerts@status.example.org>' });
  });
  afterAll(async () => {
    mailer.close();
    await smtp.close();
  });

  it('delivers subject, text, sanitised HTML and the one-click unsubscribe headers', async () => {
    const result = await mailer.send(mailTo('ada@example.com'));
    expect(result).toMatchObject({ ok: true, response: expect.stringMatching(/^250 /) });
    const mail = smtp.received.find((m) => m.text?.includes('Uploads work again') && JSON.stringify(m.to).includes('ada@'));
    expect(mail).toBeDefined();
    expect(mail!.subject).toBe('[Resolved] Files: Some files fail to upload');
    expect(mail!.from?.value[0]).toMatchObject({ name: 'statuswatch', address: 'alerts@status.example.org' });
    expect(mail!.text).toContain('Uploads work again.');
    expect(mail!.text).toContain('Details: https://status.example.org/incidents/1580');
    expect(mail!.text).not.toMatch(/<p>|&nbsp;/);
    const html = String(mail!.html);
    expect(html).toContain('<a href="https://slack.com/help" rel="noopener noreferrer nofollow" target="_blank"><span>help</span></a>');
    expect(html).not.toMatch(/<script|onerror|javascript:|<img/i);
    expect(header(mail!, 'List-Unsubscribe')).toBe('<https://status.example.org/unsubscribe?t=tok123>');
    expect(header(mail!, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
  });

  it('shows each subscriber the times of their own zone', async () => {
    const results = await Promise.all([mailer.send(mailTo('la@example.com', 'America/Los_Angeles')), mailer.send(mailTo('tokyo@example.com', 'Asia/Tokyo'))]);
    expect(results.every((r) => r.ok)).toBe(true);
    const textFor = (local: string) => smtp.received.find((m) => JSON.stringify(m.to).includes(`${local}@`))?.text ?? '';
    expect(textFor('la')).toContain('Started: 1 Oct 2026, 05:39 PDT');
    expect(textFor('la')).toContain('Latest note, 1 Oct 2026, 07:10 PDT');
    expect(textFor('tokyo')).toContain('Started: 1 Oct 2026, 21:39 GMT+9');
    expect(String(smtp.received.find((m) => JSON.stringify(m.to).includes('tokyo@'))?.html)).toContain('23:10 GMT+9');
  });

  it.each([
    ['421 at RCPT', 'rcpt421@example.com', 421],
    ['450 at RCPT', 'rcpt450@example.com', 450],
    ['451 at RCPT', 'rcpt451@example.com', 451],
    ['452 at RCPT', 'rcpt452@example.com', 452],
    ['451 at DATA', 'data451@example.com', 451],
    ['421 at DATA', 'data421@example.com', 421],
  ])('reports %s as temporary, to retry', async (_name, to, code) => {
    const result = await mailer.send(mailTo(to));
    expect(result).toMatchObject({ ok: false, kind: 'temporary', code, retryable: true });
    expect(result.ok || result.response).toContain(String(code));
  });

  it.each([550, 551, 553, 554])('reports %s at RCPT as the recipient rejected: suppress the address', async (code) => {
    const result = await mailer.send(mailTo(`rcpt${code}@example.com`));
    expect(result).toMatchObject({ ok: false, kind: 'recipient_rejected', code, retryable: false });
    expect(result.ok || result.response).toContain('rejected by test');
  });

  it('names exactly the one recipient in RCPT TO, and the sender alone in MAIL FROM', async () => {
    const before = smtp.rcptTo.length;
    expect(await mailer.send(mailTo('grace@example.com'))).toMatchObject({ ok: true });
    expect(smtp.rcptTo.slice(before)).toEqual(['grace@example.com']);
    const mail = smtp.received.find((m) => JSON.stringify(m.to).includes('grace@'))!;
    expect(mail.to).toMatchObject({ value: [{ address: 'grace@example.com', name: '' }] });
  });

  it('sends the Message-ID it is given, the same on every send of one mail', async () => {
    const messageId = '<group.0123456789abcdef@status.example.org>';
    for (let i = 0; i < 2; i++) expect(await mailer.send({ ...mailTo('twice@example.com'), messageId })).toMatchObject({ ok: true, messageId });
    const copies = smtp.received.filter((m) => JSON.stringify(m.to).includes('twice@'));
    expect(copies.map((m) => m.messageId)).toEqual([messageId, messageId]);
  });

  it.each(HOSTILE_ADDRESSES)('refuses %j for good and names nobody in RCPT TO', async (to) => {
    const before = { rcpt: smtp.rcptTo.length, received: smtp.received.length };
    const result = await mailer.send(mailTo(to));
    expect(result).toMatchObject({ ok: false, kind: 'recipient_rejected', retryable: false, response: expect.stringContaining('not one bare email address') });
    expect(smtp.rcptTo.slice(before.rcpt)).toEqual([]);
    expect(smtp.received.length).toBe(before.received);
  });

  it('reports a 5xx at DATA as this message refused, not the address', async () => {
    const result = await mailer.send(mailTo('data554@example.com'));
    expect(result).toMatchObject({ ok: false, kind: 'message_rejected', code: 554, retryable: false });
  });

  it('keeps working after faults, and sends 50 mails over at most 3 reused connections', async () => {
    const before = smtp.connections;
    const received = smtp.received.length;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => mailer.send(mailTo(`bulk${i}@example.com`))));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(smtp.received.length - received).toBe(50);
    // The faults above closed some connections (a 421 ends the session); the pool holds 3.
    expect(smtp.connections - before).toBeLessThanOrEqual(3);
  });
});

describe('how many mails createSmtpMailer sends at once', () => {
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
  });

  /** The sessions the server saw while 12 mails were sent at once, and what the mailer said of itself. */
  async function sendTwelve(smtpUrl: string): Promise<{ sessions: number; sendsAtOnce: number | undefined }> {
    const mailer = createSmtpMailer({ smtpUrl, from: 'alerts@status.example.org' });
    try {
      const before = smtp.connections;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => mailer.send(mailTo(`at-once${i}@example.com`))));
      expect(results.filter((r) => !r.ok)).toEqual([]);
      return { sessions: smtp.connections - before, sendsAtOnce: mailer.sendsAtOnce };
    } finally {
      mailer.close();
    }
  }

  it('says as many as its pool has connections, as SMTP_URL set them', async () => {
    expect(await sendTwelve(smtp.url)).toEqual({ sessions: 3, sendsAtOnce: 3 });
    expect(await sendTwelve(`${smtp.url}?maxConnections=5`)).toEqual({ sessions: 5, sendsAtOnce: 5 });
  });

  it('says nothing of itself when SMTP_URL turns the pool off: each mail has a connection of its own', async () => {
    expect(await sendTwelve(`${smtp.url}?pool=false`)).toEqual({ sessions: 12, sendsAtOnce: undefined });
  });
});

describe('createSmtpMailer when the server cannot be reached', () => {
  it('reports a refused connection as connection, to retry', async () => {
    const port = await freePort();
    for (const pool of [true, false]) {
      const mailer = createSmtpMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'alerts@status.example.org', pool });
      const result = await mailer.send(mailTo('ada@example.com'));
      mailer.close();
      expect(result).toMatchObject({ ok: false, kind: 'connection', code: null, retryable: true });
      expect(result.ok || result.response).toMatch(/ECONNREFUSED|connect/i);
    }
  });

  it('gives up on a server that never greets, after the greeting timeout', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const mailer = createSmtpMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'alerts@status.example.org', timeouts: { greetingMs: 300 } });
    const started = Date.now();
    const result = await mailer.send(mailTo('ada@example.com'));
    mailer.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    expect(result).toMatchObject({ ok: false, kind: 'connection', retryable: true });
    expect(result.ok || result.response).toMatch(/greeting|timed? ?out/i);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('classifySmtpError', () => {
  it('sorts nodemailer errors by reply code, command and code', () => {
    const err = (fields: Record<string, unknown>) => Object.assign(new Error('x'), fields);
    expect(classifySmtpError(err({ responseCode: 535, command: 'AUTH PLAIN', response: '535 bad login' }))).toMatchObject({
      kind: 'connection',
      retryable: true,
    });
    expect(classifySmtpError(err({ responseCode: 503, command: 'RCPT TO', response: '503 bad sequence' }))).toMatchObject({ kind: 'temporary' });
    expect(classifySmtpError(err({ responseCode: 550, command: 'MAIL FROM', response: '550 sender' }))).toMatchObject({ kind: 'message_rejected' });
    expect(classifySmtpError(err({ code: 'EENVELOPE', command: 'API' }))).toMatchObject({ kind: 'recipient_rejected', code: null });
    expect(classifySmtpError(err({ code: 'ETIMEDOUT' }))).toMatchObject({ kind: 'connection', retryable: true });
    expect(classifySmtpError('not even an error')).toMatchObject({ kind: 'connection', response: 'not even an error' });
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
