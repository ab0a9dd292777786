/**
 * The Workers pool's stand-in for test/helpers/smtp.ts. Workers cannot speak SMTP, so the
 * Workers form mails through Postmark's API: this starts the Postmark stand-in
 * (test/helpers/postmark-api.ts) on the Node side and shows each mail it accepted with the
 * fields of mailparser's ParsedMail the tests read. Its `url` names no real SMTP server: the
 * harness (app-service.ts) mails through the stand-in when a test sets SMTP_URL to it.
 */
import { callFactory, logPuller, type StartedFixture, watchCatcher } from './fixture-client.ts';

/** The part of mailparser's ParsedMail the tests read. */
export type CaughtMail = {
  subject: string;
  to: { value: { address: string; name: string }[]; text: string };
  from: { text: string };
  text: string;
  html: string;
  headerLines: { key: string; line: string }[];
};

type PostmarkEmail = { From: string; To: string; Subject: string; TextBody: string; HtmlBody: string; Headers?: { Name: string; Value: string }[] };

export type TestSmtp = { port: number; url: string; received: CaughtMail[]; connections: number; close(): Promise<void> };

export type MailApiTarget = { apiUrl: string; serverToken: string };

/** The stand-in behind each catcher's `url`, for the harness. */
const catchersBySmtpUrl = new Map<string, MailApiTarget>();

export function mailApiFor(smtpUrl: string): MailApiTarget {
  const target = catchersBySmtpUrl.get(smtpUrl);
  if (!target) throw new Error(`SMTP_URL ${smtpUrl}: Workers cannot send SMTP; set it to the url of a catcher from startSmtp(), which stands in for Postmark`);
  return target;
}

function toCaughtMail(email: PostmarkEmail): CaughtMail {
  return {
    subject: email.Subject,
    to: { value: [{ address: email.To, name: '' }], text: email.To },
    from: { text: email.From },
    text: email.TextBody,
    html: email.HtmlBody,
    // mailparser's headerLines: the key lowercased, the line as written.
    headerLines: (email.Headers ?? []).map((h) => ({ key: h.Name.toLowerCase(), line: `${h.Name}: ${h.Value}` })),
  };
}

export async function startSmtp(): Promise<TestSmtp> {
  const { id, url, token } = await callFactory<StartedFixture & { token: string }>('POST', '/mail-apis', {});
  const smtpUrl = `smtp://mail-api-${id}.invalid:25`;
  catchersBySmtpUrl.set(smtpUrl, { apiUrl: url, serverToken: token });
  const received: CaughtMail[] = [];
  const unwatch = watchCatcher({ flush: async () => {}, pull: logPuller<PostmarkEmail, CaughtMail>('mail-apis', id, received, toCaughtMail) });
  return {
    port: 25,
    url: smtpUrl,
    received,
    connections: 0,
    async close() {
      unwatch();
      catchersBySmtpUrl.delete(smtpUrl);
      await callFactory('DELETE', `/mail-apis/${id}`);
    },
  };
}
