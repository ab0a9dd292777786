/**
 * The on-call payloads against each tool's published limits. Sources of the figures:
 * - PagerDuty Events API v2 (developer.pagerduty.com, "Send an Alert Event"): `payload.summary`
 *   at most 1024 characters, `dedup_key` at most 255; severity one of critical, error, warning, info.
 * - Opsgenie Alert API (docs.opsgenie.com, "Alert API" and "Alerts and alert fields"): `message`
 *   at most 130 characters, `alias` at most 512, `description` at most 15,000, `note` at most 25,000,
 *   `source` at most 100.
 */
import { describe, expect, it } from 'vitest';
import { deliveryMessageOf } from '../../src/core/delivery-message.ts';
import { onCallAlertOf, severityOfType } from '../../src/core/oncall-alert.ts';
import { outcomeOfOnCallAttempt } from '../../src/core/oncall-outcome.ts';
import { opsgenieRequestsOf } from '../../src/core/opsgenie-message.ts';
import { pagerDutyEventOf } from '../../src/core/pagerduty-message.ts';
import type { WebhookAttempt } from '../../src/core/ports.ts';
import { PAGERDUTY } from '../../src/app/senders/pagerduty.ts';
import { OPSGENIE } from '../../src/app/senders/opsgenie.ts';
import { pollEvents, rawIncident } from '../fixtures/vendor-builders.ts';

const PUBLIC_URL = 'https://status.example.test';
const chars = (text: string) => Array.from(text).length;

function alertFor(overrides: Parameters<typeof rawIncident>[0] = {}, test = false) {
  const message = deliveryMessageOf(pollEvents([rawIncident(overrides)]));
  if (!message) throw new Error('no message');
  return onCallAlertOf(message, { publicUrl: PUBLIC_URL, test });
}

const HUGE_TITLE = `${'Everything is down 🔥 '.repeat(300)}end`;
const HUGE_NOTE = `<p>${'word '.repeat(20_000)}</p>`;

describe('on-call payloads', () => {
  it("keeps PagerDuty's summary within 1024 characters and its dedup_key within 255, whatever the vendor wrote", () => {
    const event = pagerDutyEventOf(
      alertFor({ title: HUGE_TITLE, notes: [{ body: HUGE_NOTE, date_created: '2026-10-01T05:39:35-07:00' }] }),
      'key',
      PUBLIC_URL,
    )!;
    expect(event.event_action).toBe('trigger');
    expect(chars(event.payload!.summary)).toBeLessThanOrEqual(1024);
    expect(chars(event.dedup_key)).toBeLessThanOrEqual(255);
    expect(['critical', 'error', 'warning', 'info']).toContain(event.payload!.severity);
    // The whole event stays far below PagerDuty's 512 kB.
    expect(JSON.stringify(event).length).toBeLessThan(16_000);
  });

  it('keeps the dedup_key within 255 characters on a host of the longest name', () => {
    const longHost = `https://${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}`;
    const message = deliveryMessageOf(pollEvents([rawIncident({ id: 'x'.repeat(64) })]))!;
    const event = pagerDutyEventOf(onCallAlertOf(message, { publicUrl: longHost, test: false }), 'key', longHost)!;
    expect(chars(event.dedup_key)).toBeLessThanOrEqual(255);
  });

  it("keeps Opsgenie's message within 130 characters, alias 512, description 15,000 and note 25,000", () => {
    const alert = alertFor({ title: HUGE_TITLE, notes: [{ body: HUGE_NOTE, date_created: '2026-10-01T05:39:35-07:00' }] });
    const [create, note] = opsgenieRequestsOf({ ...alert, action: 'update' });
    expect(chars(create!.body.message as string)).toBeLessThanOrEqual(130);
    expect(chars(create!.body.alias as string)).toBeLessThanOrEqual(512);
    expect(chars(create!.body.description as string)).toBeLessThanOrEqual(15_000);
    expect(chars(create!.body.source as string)).toBeLessThanOrEqual(100);
    expect(chars(note!.body.note as string)).toBeLessThanOrEqual(25_000);
  });

  it("takes the severity from the incident's type: outage critical, incident error, notice warning, anything else info", () => {
    expect(['outage', 'incident', 'notice', 'maintenance'].map(severityOfType)).toEqual(['critical', 'error', 'warning', 'info']);
    expect(alertFor({ type: 'outage' }).severity).toBe('critical');
  });

  it('resolves with the same key it triggered, and a test lands on its own key at info', () => {
    const open = alertFor();
    const closed = alertFor({ status: 'resolved' });
    expect(open.action).toBe('open');
    expect(closed.action).toBe('close');
    expect(pagerDutyEventOf(closed, 'key', PUBLIC_URL)).toMatchObject({ event_action: 'resolve', dedup_key: open.key });
    const test = alertFor({}, true);
    expect(test.key).toBe('statuswatch/status.example.test/test');
    expect(test.severity).toBe('info');
  });
});

function attempt(status: number | null, body: unknown, fields: Partial<WebhookAttempt> = {}): WebhookAttempt {
  return {
    ok: status !== null && status < 300,
    status,
    durationMs: 1,
    responseExcerpt: typeof body === 'string' ? body : JSON.stringify(body),
    retryAfterMs: null,
    error: null,
    gone: false,
    permanent: false,
    ...fields,
  };
}

describe('a change after the end', () => {
  it('is not sent to PagerDuty (no second resolve, no reopening) and is a note on the closed Opsgenie alert', () => {
    const resolved = rawIncident({ status: 'resolved', notes: [{ body: '<p>Fixed.</p>', date_created: '2026-10-01T05:39:35-07:00' }] });
    const edited = { ...resolved, notes: [{ body: '<p>Fixed. Postmortem to follow.</p>', date_created: '2026-10-01T05:39:35-07:00' }] };
    const message = deliveryMessageOf(pollEvents([edited], [resolved]))!;
    const alert = onCallAlertOf(message, { publicUrl: PUBLIC_URL, test: false });
    expect(alert.action).toBe('after');
    expect(pagerDutyEventOf(alert, 'key', PUBLIC_URL)).toBeNull();
    expect(opsgenieRequestsOf(alert).map((r) => r.path)).toEqual([`/v2/alerts/${encodeURIComponent(alert.key)}/notes?identifierType=alias`]);
  });
});

describe('on-call answers', () => {
  it('retries 429 and 5xx honouring Retry-After, and pauses on a refused key with the tool’s words', () => {
    expect(outcomeOfOnCallAttempt(attempt(429, { status: 'throttle event' }, { retryAfterMs: 30_000 }), PAGERDUTY)).toMatchObject({
      kind: 'retry',
      retryAfterMs: 30_000,
    });
    expect(outcomeOfOnCallAttempt(attempt(503, 'busy'), OPSGENIE)).toMatchObject({ kind: 'retry' });
    expect(
      outcomeOfOnCallAttempt(attempt(400, { status: 'invalid event', message: 'Event object is invalid', errors: ['Invalid routing key'] }), PAGERDUTY),
    ).toMatchObject({ kind: 'gone', reason: 'PagerDuty refused the key: Event object is invalid: Invalid routing key' });
    expect(outcomeOfOnCallAttempt(attempt(403, { message: 'You do not have the right to do this', took: 0 }), OPSGENIE)).toMatchObject({ kind: 'gone' });
    // Another refusal concerns this event alone: it is given up, the subscription keeps going.
    expect(
      outcomeOfOnCallAttempt(
        attempt(400, { status: 'invalid event', message: 'Event object is invalid', errors: ["'payload.summary' is missing or blank"] }),
        PAGERDUTY,
      ),
    ).toMatchObject({ kind: 'refused' });
    expect(outcomeOfOnCallAttempt(attempt(422, { message: 'Request body is not processable.', errors: { message: 'too long' } }), OPSGENIE)).toMatchObject({
      kind: 'refused',
    });
  });
});
