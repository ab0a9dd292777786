/** A watched page's component that changed state, told on every channel: named after its page, escaped like all vendor text. */
import { describe, expect, it } from 'vitest';
import { renderComponentChannelMessage } from '../../src/core/component-message.ts';
import { deliveryMessageOf, renderDeliveryEmail } from '../../src/core/delivery-message.ts';
import { renderDiscordComponentMessage } from '../../src/core/discord-message.ts';
import type { ComponentEvent, StatusEvent } from '../../src/core/events.ts';
import { planDeliveries } from '../../src/core/fanout.ts';
import { onCallAlertOf } from '../../src/core/oncall-alert.ts';
import { opsgenieRequestsOf } from '../../src/core/opsgenie-message.ts';
import { pagerDutyEventOf } from '../../src/core/pagerduty-message.ts';
import { componentEvents, type KeptComponentState } from '../../src/core/statuspage/component-events.ts';
import type { ComponentState } from '../../src/core/statuspage/mapping.ts';
import type { ComponentStatus } from '../../src/core/statuspage/schema.ts';
import type { Subscription } from '../../src/core/subscription.ts';
import { renderTeamsComponentMessage } from '../../src/core/teams-message.ts';
import { WEBHOOK_PAYLOAD_MAX_BYTES, webhookPayloadOf } from '../../src/core/webhook-payload.ts';

const PUBLIC_URL = 'https://status.example.test';
const HOSTILE = '<b>Pay</b> & "cards"\r\nBcc: x@evil.test <!channel> *bold* [link](https://evil.test)';

function component(status: ComponentStatus | 'unknown', vendorStatus: string = status, name = 'Card payments'): ComponentState {
  return { id: 'c1', name, status, vendorStatus, groupId: 'g1', position: 1, isGroup: false };
}
const group: ComponentState = { id: 'g1', name: 'Payments', status: 'operational', vendorStatus: 'operational', groupId: null, position: 2, isGroup: true };

/** The event of one flip of the component, as the source poller makes it. */
function flip(from: ComponentStatus, to: ComponentStatus, names: { page?: string; component?: string } = {}): ComponentEvent {
  const kept: KeptComponentState = { ...component(from, from, names.component), updatedAt: 1_000 };
  const [event] = componentEvents({
    source: { id: 'src_pay', name: names.page ?? 'Paystream' },
    kept: new Map([
      ['c1', kept],
      ['g1', { ...group, updatedAt: 1_000 }],
    ]),
    read: [component(to, to, names.component), group],
    detectedAt: Date.UTC(2026, 10, 27, 9, 30),
  });
  return event!;
}

const emailContext = {
  publicUrl: PUBLIC_URL,
  timeZone: 'UTC',
  unsubscribeUrl: `${PUBLIC_URL}/u`,
  manageUrl: `${PUBLIC_URL}/m`,
  sanitizeHtml: (h: string) => h,
};

describe('component.status_changed messages', () => {
  it('is one message of its own, naming the page, the component in its group, and both states in both words', () => {
    const event = flip('operational', 'degraded_performance');
    const message = deliveryMessageOf([event]);
    expect(message?.kind).toBe('component');
    const mail = renderDeliveryEmail(message!, emailContext);
    expect(mail.subject).toBe('[Degraded] Paystream · Payments / Card payments: degraded performance');
    expect(mail.text).toContain('Paystream shows Payments / Card payments as degraded performance (Degraded); it was operational (Operational).');
    expect(mail.text).toContain(`${PUBLIC_URL}/sources/src_pay`);
    expect(mail.headers['List-Unsubscribe']).toContain(`${PUBLIC_URL}/u`);
  });

  it('escapes the vendor names on every channel and keeps them to one line in headers', () => {
    const event = flip('operational', 'major_outage', { page: HOSTILE, component: HOSTILE });
    const message = deliveryMessageOf([event])!;
    const mail = renderDeliveryEmail(message, emailContext);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).toContain('&lt;b&gt;Pay&lt;/b&gt; &amp; &quot;cards&quot;');
    const chat = JSON.stringify(renderComponentChannelMessage(event.data, { publicUrl: PUBLIC_URL }));
    expect(chat).not.toContain('<!channel>');
    expect(chat).toContain('&lt;!channel&gt;');
    const discord = renderDiscordComponentMessage(event.data, { publicUrl: PUBLIC_URL });
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0]!.title).toContain('\\*bold\\*');
    expect(discord.embeds[0]!.url).toBe(`${PUBLIC_URL}/sources/src_pay`);
    const teams = JSON.stringify(renderTeamsComponentMessage(event.data, { publicUrl: PUBLIC_URL }));
    expect(teams).not.toContain('*bold*');
    expect(teams).toContain('"style":"attention"');
  });

  it('bounds the webhook body, and gives the event data as it is kept, with the page it came from', () => {
    const event = flip('operational', 'major_outage', { page: 'x'.repeat(100_000), component: 'y'.repeat(100_000) });
    const body = webhookPayloadOf(event, { id: 'src_pay', name: 'Paystream' });
    expect(new TextEncoder().encode(JSON.stringify(body)).length).toBeLessThan(WEBHOOK_PAYLOAD_MAX_BYTES);
    expect(body).toMatchObject({
      type: 'component.status_changed',
      source: { id: 'src_pay', name: 'Paystream' },
      data: { to: 'major_outage', truncated: true },
    });
    const plain = webhookPayloadOf(flip('major_outage', 'operational'));
    expect(plain).toEqual({
      type: 'component.status_changed',
      timestamp: '2026-11-27T09:30:00.000Z',
      data: {
        source: { id: 'src_pay', name: 'Paystream' },
        component: { id: 'c1', name: 'Card payments', group: 'Payments' },
        from: 'major_outage',
        to: 'operational',
        from_state: 'Outage',
        to_state: 'Operational',
      },
    });
  });
});

describe('component.status_changed on on-call tools', () => {
  const onCall = (channel: Subscription['channel']): Subscription => ({
    id: `sub_${channel}`,
    channel,
    target: 'sealed',
    filters: { sources: ['src_pay'] },
    timeZone: 'UTC',
    status: 'active',
  });
  const planned = (events: StatusEvent[]) => planDeliveries(events, [onCall('pagerduty'), onCall('opsgenie'), onCall('webhook')]).map((d) => d.channel);

  it('hears only of an outage begun or ended; every other channel hears of every change', () => {
    expect(planned([flip('operational', 'degraded_performance')])).toEqual(['webhook']);
    expect(planned([flip('degraded_performance', 'operational')])).toEqual(['webhook']);
    expect(planned([flip('operational', 'under_maintenance')])).toEqual(['webhook']);
    expect(planned([flip('operational', 'major_outage')])).toEqual(['pagerduty', 'opsgenie', 'webhook']);
    expect(planned([flip('partial_outage', 'degraded_performance')])).toEqual(['pagerduty', 'opsgenie', 'webhook']);
  });

  it('opens an alert keyed by the component when it goes out, and its recovery resolves the same alert', () => {
    const alertOf = (event: ComponentEvent) => onCallAlertOf(deliveryMessageOf([event])!, { publicUrl: PUBLIC_URL, test: false });
    const down = alertOf(flip('operational', 'major_outage'));
    const worse = alertOf(flip('partial_outage', 'major_outage'));
    const up = alertOf(flip('major_outage', 'operational'));
    expect([down.action, down.severity]).toEqual(['open', 'critical']);
    expect([worse.action, worse.severity]).toEqual(['update', 'critical']);
    expect([up.action, up.severity]).toEqual(['close', 'info']);
    expect(new Set([down.key, worse.key, up.key])).toEqual(new Set(['statuswatch/status.example.test/component/src_pay:component:c1']));
    expect(down.summary).toBe('[Outage] Paystream · Payments / Card payments: major outage');
    expect(pagerDutyEventOf(down, 'rk', PUBLIC_URL)).toMatchObject({ event_action: 'trigger', dedup_key: down.key });
    expect(pagerDutyEventOf(up, 'rk', PUBLIC_URL)).toMatchObject({ event_action: 'resolve', dedup_key: down.key });
    expect(opsgenieRequestsOf(up).map((r) => r.path)).toEqual([expect.stringContaining('/close?identifierType=alias')]);
  });
});
