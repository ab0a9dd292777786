/**
 * Every message about a source's incident names the page ("GitHub: Elevated error rates"), on every
 * channel, escaped like any vendor text; the main feed's messages stay as they were.
 */
import { describe, expect, it } from 'vitest';
import { renderChannelMessage } from '../../src/core/channel-message.ts';
import { deliveryMessageOf, type DeliveryMessage } from '../../src/core/delivery-message.ts';
import { renderDiscordMessage } from '../../src/core/discord-message.ts';
import { renderEmail } from '../../src/core/email-render.ts';
import type { StatusEvent } from '../../src/core/events.ts';
import type { IncidentUpdate, MessageSource } from '../../src/core/notification-message.ts';
import { onCallAlertOf } from '../../src/core/oncall-alert.ts';
import { opsgenieRequestsOf } from '../../src/core/opsgenie-message.ts';
import { pagerDutyEventOf } from '../../src/core/pagerduty-message.ts';
import { renderTeamsMessage } from '../../src/core/teams-message.ts';
import { WEBHOOK_PAYLOAD_MAX_BYTES, webhookPayloadOf } from '../../src/core/webhook-payload.ts';
import { nextRootView, renderAppRoot } from '../../src/core/workspace-app/message.ts';
import { allText } from '../fixtures/message-fixtures.ts';
import { pollEvents, rawIncident } from '../fixtures/vendor-builders.ts';

const PUBLIC_URL = 'https://status.example.test';
const GITHUB: MessageSource = { id: 'src_gh', name: 'GitHub' };
const MAIN: MessageSource = { id: 'main', name: 'status.vendor.example' };
const emailContext = { publicUrl: PUBLIC_URL, timeZone: 'UTC', unsubscribeUrl: `${PUBLIC_URL}/u`, manageUrl: null, sanitizeHtml: (html: string) => html };

const sourceEvents = (): StatusEvent[] =>
  pollEvents([rawIncident({ id: 'src_gh:swinc1', title: 'Elevated error rates', type: 'outage', services: ['Actions'] })]);

function incidentMessage(events: StatusEvent[], source: MessageSource | null): Extract<DeliveryMessage, { kind: 'incident' }> {
  const message = deliveryMessageOf(events, source);
  if (message?.kind !== 'incident') throw new Error('no incident message');
  return message;
}

/** Every face's words for one update: email, chat channel, Teams, Discord, the app's root, PagerDuty and Opsgenie. */
function everyChannel(message: Extract<DeliveryMessage, { kind: 'incident' }>) {
  const update: IncidentUpdate = message.update;
  const alert = onCallAlertOf(message, { publicUrl: PUBLIC_URL, test: false });
  const email = renderEmail(update, emailContext);
  return {
    emailSubject: email.subject,
    emailText: email.text.split('\n')[0],
    emailHtml: email.html,
    channel: renderChannelMessage(update, { publicUrl: PUBLIC_URL }).text,
    teams: allText(renderTeamsMessage(update, update.note, { publicUrl: PUBLIC_URL })).join('\n'),
    discord: renderDiscordMessage(update, update.note, { publicUrl: PUBLIC_URL }).content,
    app: renderAppRoot(nextRootView(null, update), { publicUrl: PUBLIC_URL }).text,
    pagerduty: pagerDutyEventOf(alert, 'key', PUBLIC_URL)!.payload!.summary,
    opsgenie: opsgenieRequestsOf(alert)[0]!.body.message as string,
  };
}

describe("messages about a source's incident", () => {
  it('name the page on every channel', () => {
    const words = everyChannel(incidentMessage(sourceEvents(), GITHUB));
    expect(words.emailSubject).toBe('[Outage] GitHub · Actions: Elevated error rates');
    expect(words.emailText).toBe(words.emailSubject);
    expect(words.emailHtml).toContain('<h1 style="font-size:19px;margin:0 0 12px">[Outage] GitHub · Actions: Elevated error rates</h1>');
    expect(words.channel).toContain('Outage: GitHub: Elevated error rates');
    expect(words.teams).toContain('Outage: GitHub: Elevated error rates');
    expect(words.discord).toBe('**Outage** · GitHub: Elevated error rates');
    expect(words.app).toContain('GitHub: Elevated error rates');
    expect(words.pagerduty).toBe('[Outage] GitHub · Actions: Elevated error rates');
    expect(words.opsgenie).toContain('GitHub');
  });

  it("leave the main feed's messages as they were", () => {
    const events = pollEvents([rawIncident({ title: 'Files fail to upload', type: 'outage', services: ['Files'] })]);
    expect(everyChannel(incidentMessage(events, MAIN))).toEqual(everyChannel(incidentMessage(events, null)));
    expect(everyChannel(incidentMessage(events, MAIN)).emailSubject).toBe('[Outage] Files: Files fail to upload');
  });

  it("escape the page's name as any vendor text: no markup, no new header line", () => {
    const hostile: MessageSource = { id: 'src_gh', name: '<b>Git&Hub</b>\r\nBcc: everyone@example.com *bold* <!channel>' };
    const words = everyChannel(incidentMessage(sourceEvents(), hostile));
    expect(words.emailSubject).not.toMatch(/[\r\n]/);
    expect(words.emailSubject).toContain('<b>Git&Hub</b> Bcc: everyone@example.com');
    expect(words.emailHtml).toContain('&lt;b&gt;Git&amp;Hub&lt;/b&gt;');
    expect(words.emailHtml).not.toContain('<b>Git');
    expect(words.channel).not.toContain('<!channel>');
    expect(words.discord).not.toContain('*bold*');
    expect(words.app).not.toContain('<!channel>');
  });
});

describe("a webhook's body", () => {
  it('carries where the event came from, beside the fields it always had', () => {
    const [event] = sourceEvents();
    const body = webhookPayloadOf(event!, GITHUB);
    expect(body).toEqual({ ...webhookPayloadOf(event!), source: { id: 'src_gh', name: 'GitHub' } });
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'source', 'data']);
  });

  it('stays within its bound whatever the name', () => {
    const [event] = pollEvents([rawIncident({ id: 'src_gh:swinc1', title: 'x'.repeat(1_000_000), services: Array(200).fill('y'.repeat(5000)) })]);
    const body = JSON.stringify(webhookPayloadOf(event!, { id: 'src_gh', name: '"'.repeat(1_000_000) }));
    expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(WEBHOOK_PAYLOAD_MAX_BYTES);
  });
});
