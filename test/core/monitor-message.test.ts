/** The monitor's news as email, team-chat message and webhook body: vendor text inert, sizes bounded. */
import { describe, expect, it } from 'vitest';
import type { MonitorEvent, MonitorEventData } from '../../src/core/events.ts';
import { renderMonitorChannelMessage, renderMonitorEmail } from '../../src/core/monitor-message.ts';
import { toMonitorWebhookPayload, WEBHOOK_PAYLOAD_MAX_BYTES } from '../../src/core/webhook-payload.ts';

const HOSTILE = '<!channel> <script>alert(1)</script> & <https://evil.example|click>';
const context = {
  publicUrl: 'https://status.example.test',
  timeZone: 'UTC',
  unsubscribeUrl: 'https://status.example.test/unsubscribe?token=t',
  manageUrl: 'https://status.example.test/manage?token=t',
};

const blind: MonitorEventData = {
  type: 'monitor.blind',
  since: '2026-10-01T12:00:00.000Z',
  last_error: `v2/current: HTTP 503 ${HOSTILE}`,
  last_known: { ongoing: [{ id: '1', title: HOSTILE, type: 'outage', status: 'active', services: ['Files'] }], more: 3 },
};

function event(data: MonitorEventData): MonitorEvent {
  return {
    id: `${data.type}.1`,
    type: data.type,
    incidentId: '',
    revision: 0,
    occurredAt: 0,
    detectedAt: Date.parse('2026-10-01T12:06:00Z'),
    backfill: false,
    data,
  };
}

describe('monitor messages', () => {
  it('an email says since when, the error and what we last knew, with vendor text escaped in the HTML part', () => {
    const email = renderMonitorEmail(blind, context);
    expect(email.subject).toBe("[Blind] statuswatch cannot read the vendor's status feed");
    expect(email.text).toContain('no data since 1 Oct 2026, 12:00 UTC');
    expect(email.text).toContain('and 3 more');
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;');
    expect(email.headers['List-Unsubscribe']).toBe(`<${context.unsubscribeUrl}>`);
  });

  it('an email is signed, headed and marked as every subscriber email is: one-click unsubscribe, no auto-replies', () => {
    const email = renderMonitorEmail(blind, context);
    expect(email.headers).toEqual({
      'List-Unsubscribe': `<${context.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'Auto-Submitted': 'auto-generated',
    });
    expect(email.text.endsWith(`\n-- \nChange what you receive: ${context.manageUrl}\nUnsubscribe: ${context.unsubscribeUrl}\n`)).toBe(true);
    expect(email.html).toMatch(/^<!doctype html>\n<html><head><meta charset="utf-8">.*\n<body [^\n]*>\n<h1 [^>]*>\[Blind\] statuswatch/);
  });

  it('a team-chat message cannot mention everyone or make a link from vendor text', () => {
    const message = JSON.stringify(renderMonitorChannelMessage(blind));
    expect(message).not.toContain('<!channel>');
    expect(message).not.toContain('<https://evil');
    expect(message).toContain('&lt;!channel&gt;');
  });

  it('a recovery says how long it lasted', () => {
    const recovered: MonitorEventData = { type: 'monitor.recovered', since: blind.since, recovered_at: '2026-10-01T14:05:00.000Z', blind_for_ms: 125 * 60_000 };
    expect(renderMonitorEmail(recovered, context).text).toContain('It could not be read for 2 h 5 min');
  });

  it('a webhook body stays within the payload bound whatever the vendor and the error say', () => {
    const huge = 'é\u0000'.repeat(200_000);
    const ongoing = Array.from({ length: 5 }, () => ({ id: huge, title: huge, type: huge, status: huge, services: Array(40).fill(huge) }));
    const payload = toMonitorWebhookPayload(event({ ...blind, last_error: huge, last_known: { ongoing, more: 100 } }));
    expect(new TextEncoder().encode(JSON.stringify(payload)).length).toBeLessThanOrEqual(WEBHOOK_PAYLOAD_MAX_BYTES);
    expect(payload.data).toMatchObject({ truncated: true, since: blind.since });
  });
});
