/**
 * One incident as a Discord webhook message: a short content line and one embed coloured by the
 * incident's state, showing the incident as it stands (status, services, the latest note, links).
 * The same message is posted first and then edited in place, so it always shows the final state.
 * Every figure below is Discord's published limit for a message or an embed.
 */
import { escapedMarkdownWithin } from './chat-markdown.ts';
import { componentLines, componentSubject, sourcePageUrl } from './component-message.ts';
import type { ComponentEventData, MonitorEventData, NoteRef } from './events.ts';
import { isOngoing } from './incident.ts';
import { monitorLines, monitorSubject } from './monitor-message.ts';
import { timeFormatter } from './email-render.ts';
import { changeLines, incidentPageUrl, messageHeadline, noteText, servicesList, statusText, vendorUrl, type IncidentUpdate } from './notification-message.ts';

export const DISCORD_CONTENT_MAX_CHARS = 2_000;
export const DISCORD_EMBED_TITLE_MAX_CHARS = 256;
export const DISCORD_EMBED_DESCRIPTION_MAX_CHARS = 4_096;
export const DISCORD_EMBED_FIELDS_MAX = 25;
export const DISCORD_FIELD_NAME_MAX_CHARS = 256;
export const DISCORD_FIELD_VALUE_MAX_CHARS = 1_024;
export const DISCORD_FOOTER_MAX_CHARS = 2_048;
/** The sum of every embed's title, description, field names and values, footer and author. */
export const DISCORD_EMBEDS_TOTAL_MAX_CHARS = 6_000;
/** Our own bound on a note: the rest is on our incident page. */
export const DISCORD_NOTE_MAX_CHARS = 3_000;

/** The content line names the incident briefly (the notification's preview); well within DISCORD_CONTENT_MAX_CHARS. */
const CONTENT_TITLE_MAX_CHARS = 300;

/** Embed colours (24-bit RGB), Discord's own palette: green over, red outage, orange incident, blue notice, grey unknown. */
export const DISCORD_COLORS = { good: 0x57f287, outage: 0xed4245, incident: 0xfee75c, notice: 0x5865f2, unknown: 0x99aab5 } as const;

export type DiscordField = { name: string; value: string; inline?: boolean };
export type DiscordEmbed = {
  title: string;
  url?: string;
  description?: string;
  color: number;
  fields: DiscordField[];
  footer?: { text: string };
  timestamp?: string;
};
export type DiscordMessage = {
  content: string;
  embeds: DiscordEmbed[];
  /** No mention in vendor text may ping anyone. */
  allowed_mentions: { parse: [] };
};

export function incidentColor(incident: { status: string; type: string }): number {
  if (!isOngoing(incident.status)) return DISCORD_COLORS.good;
  if (incident.type === 'outage') return DISCORD_COLORS.outage;
  if (incident.type === 'notice' || incident.status === 'scheduled') return DISCORD_COLORS.notice;
  return DISCORD_COLORS.incident;
}

/** `note`: the newest note the message shows (kept by the caller when this update brings none). */
export function renderDiscordMessage(update: IncidentUpdate, note: NoteRef | null, context: { publicUrl: string }): DiscordMessage {
  const { label, title } = messageHeadline(update);
  const { incident } = update;
  const page = incidentPageUrl(context.publicUrl, incident.id);
  const theirs = vendorUrl(incident.url);
  const fields: DiscordField[] = [
    { name: 'Status', value: escapedMarkdownWithin(statusText(update), DISCORD_FIELD_VALUE_MAX_CHARS), inline: true },
    { name: 'Services', value: escapedMarkdownWithin(servicesList(incident.services), DISCORD_FIELD_VALUE_MAX_CHARS), inline: true },
  ];
  const changes = changeLines(update);
  if (changes.length > 0) fields.push({ name: 'Latest change', value: escapedMarkdownWithin(changes.join(' '), DISCORD_FIELD_VALUE_MAX_CHARS) });
  fields.push({ name: 'Links', value: [`[View the incident](<${page}>)`, ...(theirs ? [`[Vendor status page](<${theirs}>)`] : [])].join(' · ') });
  const shown = note ? escapedMarkdownWithin(noteText(note.body), DISCORD_NOTE_MAX_CHARS) : '';
  const embed: DiscordEmbed = {
    title: escapedMarkdownWithin(`${label}: ${title}`, DISCORD_EMBED_TITLE_MAX_CHARS),
    url: page,
    ...(shown === '' ? {} : { description: shown }),
    color: incidentColor(incident),
    fields,
    footer: { text: 'statuswatch' },
    timestamp: new Date(update.occurredAt).toISOString(),
  };
  return { content: `**${label}** · ${escapedMarkdownWithin(title, CONTENT_TITLE_MAX_CHARS)}`, embeds: [withinTotal(embed)], allowed_mentions: { parse: [] } };
}

export function renderDiscordMonitorMessage(data: MonitorEventData): DiscordMessage {
  const lines = monitorLines(data, timeFormatter('UTC'));
  const embed: DiscordEmbed = {
    title: escapedMarkdownWithin(monitorSubject(data), DISCORD_EMBED_TITLE_MAX_CHARS),
    description: escapedMarkdownWithin(lines.join('\n'), DISCORD_EMBED_DESCRIPTION_MAX_CHARS),
    color: data.type === 'monitor.blind' ? DISCORD_COLORS.outage : DISCORD_COLORS.good,
    fields: [],
    footer: { text: 'statuswatch' },
  };
  return { content: '', embeds: [withinTotal(embed)], allowed_mentions: { parse: [] } };
}

/** A component's change: one embed, coloured by the state it went to, linking to the page on statuswatch. */
export function renderDiscordComponentMessage(data: ComponentEventData, context: { publicUrl: string }): DiscordMessage {
  const embed: DiscordEmbed = {
    title: escapedMarkdownWithin(componentSubject(data), DISCORD_EMBED_TITLE_MAX_CHARS),
    description: escapedMarkdownWithin(componentLines(data).join('\n'), DISCORD_EMBED_DESCRIPTION_MAX_CHARS),
    url: sourcePageUrl(context.publicUrl, data.source.id),
    color: DISCORD_COMPONENT_COLORS[data.to_state] ?? DISCORD_COLORS.unknown,
    fields: [],
    footer: { text: 'statuswatch' },
  };
  return { content: '', embeds: [withinTotal(embed)], allowed_mentions: { parse: [] } };
}

/** Our word for a component's state as an embed colour. */
const DISCORD_COMPONENT_COLORS: Readonly<Record<string, number>> = {
  Operational: DISCORD_COLORS.good,
  Degraded: DISCORD_COLORS.incident,
  Outage: DISCORD_COLORS.outage,
  Maintenance: DISCORD_COLORS.notice,
};

/** The characters Discord counts towards DISCORD_EMBEDS_TOTAL_MAX_CHARS. */
export function embedChars(embed: DiscordEmbed): number {
  return (
    embed.title.length +
    (embed.description?.length ?? 0) +
    embed.fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0) +
    (embed.footer?.text.length ?? 0)
  );
}

/** The description gives way first when the whole embed would pass Discord's total. */
function withinTotal(embed: DiscordEmbed): DiscordEmbed {
  const fields = embed.fields.slice(0, DISCORD_EMBED_FIELDS_MAX);
  const sized = { ...embed, fields };
  const over = embedChars(sized) - DISCORD_EMBEDS_TOTAL_MAX_CHARS;
  if (over <= 0 || !sized.description) return sized;
  const keep = Math.max(0, sized.description.length - over - 1);
  return { ...sized, description: `${sized.description.slice(0, keep).replace(/\\$/, '')}…` };
}
