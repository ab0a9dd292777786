/** Each channel's answer becomes exactly one outcome, carrying only the fields that outcome has. */
import { describe, expect, it } from 'vitest';
import type { WebhookAttempt } from '../../src/core/ports.ts';
import { outcomeOfMail, outcomeOfWebhookAttempt } from '../../src/core/send-outcome.ts';

const attempt = (fields: Partial<WebhookAttempt>): WebhookAttempt => ({
  ok: false,
  status: null,
  durationMs: 5,
  responseExcerpt: '',
  retryAfterMs: null,
  error: null,
  gone: false,
  permanent: false,
  ...fields,
});

describe('outcomeOfWebhookAttempt', () => {
  it('sends a 2xx, retries a 5xx as the receiver asked, refuses what cannot pass, and says a 410 is gone', () => {
    expect(outcomeOfWebhookAttempt(attempt({ ok: true, status: 204, responseExcerpt: 'ok' }))).toEqual({ kind: 'sent', status: 204, excerpt: 'ok' });
    expect(outcomeOfWebhookAttempt(attempt({ status: 503, retryAfterMs: 30_000 }))).toEqual({
      kind: 'retry',
      error: 'HTTP 503',
      retryAfterMs: 30_000,
      status: 503,
      excerpt: '',
    });
    expect(outcomeOfWebhookAttempt(attempt({ error: 'target refused: loopback', permanent: true }))).toEqual({
      kind: 'refused',
      error: 'target refused: loopback',
      status: null,
      excerpt: '',
    });
    // A 410 is permanent too, and gone wins: the subscription pauses.
    expect(outcomeOfWebhookAttempt(attempt({ status: 410, gone: true, permanent: true }))).toMatchObject({
      kind: 'gone',
      reason: 'the receiver answered 410 Gone',
    });
    expect(outcomeOfWebhookAttempt(attempt({}))).toMatchObject({ kind: 'retry', error: 'no answer' });
  });
});

describe('outcomeOfMail', () => {
  it('says an address the server refused is gone, a refused message refused, and a 4xx retried', () => {
    expect(outcomeOfMail({ ok: true, response: '250 queued', messageId: '<m@x>' })).toEqual({ kind: 'sent', status: 250, excerpt: '250 queued' });
    expect(outcomeOfMail({ ok: false, kind: 'recipient_rejected', code: 550, response: '550 no such user', retryable: false })).toEqual({
      kind: 'gone',
      error: 'SMTP 550: 550 no such user',
      reason: 'the mail server refused the address: 550 no such user',
      status: 550,
      excerpt: '550 no such user',
    });
    expect(outcomeOfMail({ ok: false, kind: 'message_rejected', code: 554, response: '554 spam', retryable: false })).toMatchObject({ kind: 'refused' });
    expect(outcomeOfMail({ ok: false, kind: 'temporary', code: 451, response: '451 later', retryable: true })).toMatchObject({
      kind: 'retry',
      retryAfterMs: null,
    });
    expect(outcomeOfMail({ ok: false, kind: 'connection', code: null, response: 'refused', retryable: true })).toMatchObject({
      kind: 'retry',
      error: 'SMTP connection: refused',
    });
  });
});
