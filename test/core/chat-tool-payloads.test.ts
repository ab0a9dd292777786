/**
 * The Teams card and the Discord message against each tool's published limits and schema, with
 * the worst vendor text: titles, notes and service lists far over every limit, and text that
 * would be Markdown links or mentions. The source of each figure is named where it is checked.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { escapeChatMarkdown } from '../../src/core/chat-markdown.ts';
import { DISCORD_COLORS, embedChars, renderDiscordMessage, renderDiscordMonitorMessage, type DiscordMessage } from '../../src/core/discord-message.ts';
import type { MonitorEventData } from '../../src/core/events.ts';
import { renderTeamsMessage, renderTeamsMonitorMessage, type TeamsMessage } from '../../src/core/teams-message.ts';
import { incidentUpdate } from '../fixtures/message-fixtures.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';

const context = { publicUrl: 'https://status.example.test' };

/** Microsoft's own Adaptive Cards library (the `adaptivecards` package), parsing and validating as the clients do. */
const AdaptiveCards = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.js') as {
  AdaptiveCard: new () => {
    parse(json: unknown, context: unknown): void;
    validateProperties(): { validationEvents: { message: string }[] };
    version: { toString(): string };
  };
  SerializationContext: new () => { eventCount: number; getEventAt(i: number): { message: string } };
};

function cardProblems(message: TeamsMessage): string[] {
  const card = new AdaptiveCards.AdaptiveCard();
  const parsing = new AdaptiveCards.SerializationContext();
  card.parse(message.attachments[0].content, parsing);
  const problems = Array.from({ length: parsing.eventCount }, (_, i) => parsing.getEventAt(i).message);
  return [...problems, ...card.validateProperties().validationEvents.map((e) => e.message)];
}

const huge = 'x'.repeat(20_000);
const worst = rawIncident({
  title: `[click me](https://evil.example) @everyone <@123> **bold** ${huge}`,
  type: 'outage',
  services: Array.from({ length: 200 }, (_, i) => `Service number ${i} ${'y'.repeat(50)}`),
  notes: [{ body: `<p># heading\n> quote ${'note '.repeat(10_000)}</p>`, date_created: '2026-10-01T05:39:35-07:00' }],
});
const before = rawIncident({ ...worst, title: huge, services: ['Messaging'], notes: [] });
const blind: MonitorEventData = {
  type: 'monitor.blind',
  since: '2026-10-01T12:00:00.000Z',
  last_error: `HTTP 503 ${huge}`,
  last_known: { ongoing: [{ id: '1', title: huge, type: 'outage', status: 'active', services: ['Calls'] }], more: 3 },
} as unknown as MonitorEventData;

describe('Discord message limits', () => {
  // https://discord.com/developers/docs/resources/message#embed-object-embed-limits: title 256,
  // description 4096, fields 25, field name 256, field value 1024, footer text 2048, and the
  // characters of all embeds together 6000. Execute Webhook: content up to 2000 characters
  // (https://discord.com/developers/docs/resources/webhook#execute-webhook).
  function withinLimits(message: DiscordMessage) {
    expect(message.content.length).toBeLessThanOrEqual(2000);
    expect(message.embeds.length).toBeLessThanOrEqual(10);
    for (const embed of message.embeds) {
      expect(embed.title.length).toBeLessThanOrEqual(256);
      expect(embed.description?.length ?? 0).toBeLessThanOrEqual(4096);
      expect(embed.fields.length).toBeLessThanOrEqual(25);
      for (const field of embed.fields) {
        expect(field.name.length).toBeLessThanOrEqual(256);
        expect(field.value.length).toBeLessThanOrEqual(1024);
        expect(field.value.length).toBeGreaterThan(0);
      }
      expect(embed.footer?.text.length ?? 0).toBeLessThanOrEqual(2048);
      expect(embedChars(embed)).toBeLessThanOrEqual(6000);
      // A color is a 24-bit RGB integer.
      expect(embed.color).toBeGreaterThanOrEqual(0);
      expect(embed.color).toBeLessThanOrEqual(0xffffff);
    }
  }

  it('keeps the worst incident within every limit, and the monitor message too', () => {
    const update = incidentUpdate(worst, before);
    const message = renderDiscordMessage(update, update.note, context);
    withinLimits(message);
    expect(message.embeds[0]!.description!.endsWith('…')).toBe(true);
    withinLimits(renderDiscordMonitorMessage(blind));
  });

  it('pings nobody and makes no link of vendor text', () => {
    const update = incidentUpdate(worst, before);
    const message = renderDiscordMessage(update, update.note, context);
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.embeds[0]!.title).toContain('\\[click me\\](https://evil.example) @everyone \\<@123\\> \\*\\*bold\\*\\*');
    expect(message.embeds[0]!.description).toMatch(/^\\# heading\n\\> quote/);
  });

  it('colours the embed by state: outage red, incident yellow, notice blue, over green', () => {
    const colorOf = (status: string, type: string) => renderDiscordMessage(incidentUpdate(rawIncident({ status, type })), null, context).embeds[0]!.color;
    expect(colorOf('active', 'outage')).toBe(DISCORD_COLORS.outage);
    expect(colorOf('active', 'incident')).toBe(DISCORD_COLORS.incident);
    expect(colorOf('active', 'notice')).toBe(DISCORD_COLORS.notice);
    expect(colorOf('resolved', 'outage')).toBe(DISCORD_COLORS.good);
  });
});

describe('Teams Adaptive Card', () => {
  it('is an Adaptive Card 1.4 in the Workflows message envelope that the Adaptive Cards library parses without a complaint', () => {
    const update = incidentUpdate(worst, before);
    for (const message of [renderTeamsMessage(update, update.note, context), renderTeamsMonitorMessage(blind)]) {
      // https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook:
      // a Workflows webhook takes {"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.adaptive","content":{…}}]}.
      expect(message.type).toBe('message');
      expect(message.attachments).toHaveLength(1);
      expect(message.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
      // https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-reference:
      // Teams renders Adaptive Cards up to version 1.5 (1.4 everywhere, mobile included).
      expect(message.attachments[0].content.version).toBe('1.4');
      expect(cardProblems(message)).toEqual([]);
      // The same page: a message over 28 KB is refused.
      expect(new TextEncoder().encode(JSON.stringify(message)).length).toBeLessThanOrEqual(28 * 1024);
    }
  });

  it('uses the card’s semantic styles, never a colour of its own, so light, dark and high-contrast themes each draw it', () => {
    const styleOf = (status: string, type: string) => {
      const body = renderTeamsMessage(incidentUpdate(rawIncident({ status, type })), null, context).attachments[0].content.body;
      return body[0]!.type === 'Container' ? body[0]!.style : null;
    };
    expect([styleOf('active', 'outage'), styleOf('active', 'incident'), styleOf('active', 'notice'), styleOf('resolved', 'outage')]).toEqual([
      'attention',
      'warning',
      'accent',
      'good',
    ]);
    expect(JSON.stringify(renderTeamsMessage(incidentUpdate(worst, before), null, context))).not.toMatch(/#[0-9a-f]{6}\b/i);
  });

  it('shows the state, services, latest note and both links, and makes no link of vendor text', () => {
    const update = incidentUpdate(worst, before);
    const card = renderTeamsMessage(update, update.note, context).attachments[0].content;
    const json = JSON.stringify(card);
    expect(json).toContain('"title":"Status"');
    expect(json).toContain('"title":"Services"');
    expect(json).toContain('heading');
    expect(card.actions.map((a) => a.title)).toEqual(['View the incident', 'Vendor status page']);
    expect(json).toContain('\\\\[click me\\\\](https://evil.example)');
  });
});

describe('chat Markdown escaping', () => {
  it('escapes what formats, leaves plain punctuation alone', () => {
    expect(escapeChatMarkdown('Files: 3.5 (EU) - ok')).toBe('Files: 3.5 (EU) - ok');
    expect(escapeChatMarkdown('1. first\n- item\n> q\n# h')).toBe('1\\. first\n\\- item\n\\> q\n\\# h');
    expect(escapeChatMarkdown('a_b*c~d`e|f[g]h<i>j\\k')).toBe('a\\_b\\*c\\~d\\`e\\|f\\[g\\]h\\<i\\>j\\\\k');
  });
});
