/**
 * One incident update (or monitor event) as a Microsoft Teams Workflows webhook message: the
 * `message` envelope with one Adaptive Card attachment. Colours are the card's semantic styles
 * (`good`, `attention`, `warning`, `accent`), which each Teams theme (light, dark, high contrast)
 * draws in its own palette, so the card stays readable in all of them.
 */
import { componentLines, componentSubject, sourcePageUrl } from './component-message.ts';
import type { ComponentEventData, MonitorEventData } from './events.ts';
import { isOngoing } from './incident.ts';
import { escapedMarkdownWithin } from './chat-markdown.ts';
import { monitorLines, monitorSubject } from './monitor-message.ts';
import { changeLines, incidentPageUrl, messageHeadline, noteText, servicesList, statusText, vendorUrl, type IncidentUpdate } from './notification-message.ts';
import type { NoteRef } from './events.ts';

/** The Adaptive Card version Teams renders in Workflows messages and mobile clients. */
export const TEAMS_CARD_VERSION = '1.4';
export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';
/** Longest note shown; the rest is on our incident page. */
export const TEAMS_NOTE_MAX_CHARS = 1_500;
const TITLE_MAX_CHARS = 200;
const FACT_MAX_CHARS = 1_000;

/** The container styles of the Adaptive Card schema (ContainerStyle). */
export type CardStyle = 'default' | 'emphasis' | 'good' | 'attention' | 'warning' | 'accent';

export type CardElement =
  | {
      type: 'TextBlock';
      text: string;
      wrap: true;
      weight?: 'Bolder';
      size?: 'Medium' | 'Large';
      isSubtle?: boolean;
      color?: 'Good' | 'Attention' | 'Warning' | 'Accent';
    }
  | { type: 'FactSet'; facts: { title: string; value: string }[] }
  | { type: 'Container'; style: CardStyle; bleed: true; items: CardElement[] };

export type AdaptiveCard = {
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
  type: 'AdaptiveCard';
  version: typeof TEAMS_CARD_VERSION;
  body: CardElement[];
  actions: { type: 'Action.OpenUrl'; title: string; url: string }[];
  msteams: { width: 'Full' };
};

export type TeamsMessage = {
  type: 'message';
  attachments: [{ contentType: typeof ADAPTIVE_CARD_CONTENT_TYPE; contentUrl: null; content: AdaptiveCard }];
};

/** The style an incident's card is drawn in: over is good, an outage attention, a notice or schedule accent, the rest warning. */
export function incidentCardStyle(incident: { status: string; type: string }): CardStyle {
  if (!isOngoing(incident.status)) return 'good';
  if (incident.type === 'outage') return 'attention';
  if (incident.type === 'notice' || incident.status === 'scheduled') return 'accent';
  return 'warning';
}

/**
 * `note`: the incident's latest note, the update's own or, when it brings none, the newest an
 * earlier card showed. Times are written with the card's DATE and TIME functions, so each reader
 * sees their own zone.
 */
export function renderTeamsMessage(update: IncidentUpdate, note: NoteRef | null, context: { publicUrl: string }): TeamsMessage {
  const { label, title } = messageHeadline(update);
  const { incident } = update;
  const body: CardElement[] = [
    {
      type: 'Container',
      style: incidentCardStyle(incident),
      bleed: true,
      items: [{ type: 'TextBlock', text: escapedMarkdownWithin(`${label}: ${title}`, TITLE_MAX_CHARS), wrap: true, weight: 'Bolder', size: 'Medium' }],
    },
    {
      type: 'FactSet',
      facts: [
        { title: 'Status', value: escapedMarkdownWithin(statusText(update), FACT_MAX_CHARS) },
        { title: 'Services', value: escapedMarkdownWithin(servicesList(incident.services), FACT_MAX_CHARS) },
      ],
    },
  ];
  const changes = changeLines(update);
  if (changes.length > 0) body.push({ type: 'TextBlock', text: escapedMarkdownWithin(changes.join(' '), FACT_MAX_CHARS), wrap: true, isSubtle: true });
  const noteBlock = noteElement(note);
  if (noteBlock) body.push(noteBlock);
  body.push({ type: 'TextBlock', text: `Updated ${cardTime(update.occurredAt)}`, wrap: true, isSubtle: true });
  const theirs = vendorUrl(incident.url);
  const actions = [
    { type: 'Action.OpenUrl' as const, title: 'View the incident', url: incidentPageUrl(context.publicUrl, incident.id) },
    ...(theirs ? [{ type: 'Action.OpenUrl' as const, title: 'Vendor status page', url: theirs }] : []),
  ];
  return envelope(body, actions);
}

export function renderTeamsMonitorMessage(data: MonitorEventData): TeamsMessage {
  const lines = monitorLines(data, (ms) => cardTime(ms));
  return envelope(
    [
      {
        type: 'Container',
        style: data.type === 'monitor.blind' ? 'attention' : 'good',
        bleed: true,
        items: [{ type: 'TextBlock', text: escapedMarkdownWithin(monitorSubject(data), TITLE_MAX_CHARS), wrap: true, weight: 'Bolder', size: 'Medium' }],
      },
      // The times are card functions, written after escaping so their braces stay functions.
      ...lines.map((line): CardElement => ({ type: 'TextBlock', text: escapeKeepingTimes(line), wrap: true })),
    ],
    [],
  );
}

/** A component's change: its card styled by the state it went to, linking to the page on statuswatch. */
export function renderTeamsComponentMessage(data: ComponentEventData, context: { publicUrl: string }): TeamsMessage {
  return envelope(
    [
      {
        type: 'Container',
        style: COMPONENT_CARD_STYLES[data.to_state] ?? 'default',
        bleed: true,
        items: [{ type: 'TextBlock', text: escapedMarkdownWithin(componentSubject(data), TITLE_MAX_CHARS), wrap: true, weight: 'Bolder', size: 'Medium' }],
      },
      ...componentLines(data).map((line): CardElement => ({ type: 'TextBlock', text: escapedMarkdownWithin(line, FACT_MAX_CHARS), wrap: true })),
    ],
    [{ type: 'Action.OpenUrl', title: 'The page on statuswatch', url: sourcePageUrl(context.publicUrl, data.source.id) }],
  );
}

/** Our word for a component's state as a card style, as incidentCardStyle draws incidents. */
const COMPONENT_CARD_STYLES: Readonly<Record<string, CardStyle>> = {
  Operational: 'good',
  Degraded: 'warning',
  Outage: 'attention',
  Maintenance: 'accent',
};

function noteElement(note: NoteRef | null): CardElement | null {
  if (!note) return null;
  const text = escapedMarkdownWithin(noteText(note.body), TEAMS_NOTE_MAX_CHARS);
  return text === '' ? null : { type: 'TextBlock', text, wrap: true };
}

function envelope(body: CardElement[], actions: AdaptiveCard['actions']): TeamsMessage {
  return {
    type: 'message',
    attachments: [
      {
        contentType: ADAPTIVE_CARD_CONTENT_TYPE,
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: TEAMS_CARD_VERSION,
          body,
          actions,
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}

/** `{{DATE(…, SHORT)}} {{TIME(…)}}`: Teams writes the instant in the reader's zone; the functions take RFC 3339 without fractions. */
export function cardTime(ms: number): string {
  const iso = `${new Date(ms).toISOString().slice(0, 19)}Z`;
  return `{{DATE(${iso}, SHORT)}} {{TIME(${iso})}}`;
}

const CARD_TIME = /\{\{(?:DATE|TIME)\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ(?:, SHORT)?\)\}\}/g;

/** Escapes a line around the card time functions it contains, which stay as they are. */
function escapeKeepingTimes(line: string): string {
  let out = '';
  let last = 0;
  for (const match of line.matchAll(CARD_TIME)) {
    out += escapedMarkdownWithin(line.slice(last, match.index), FACT_MAX_CHARS) + match[0];
    last = match.index + match[0].length;
  }
  return out + escapedMarkdownWithin(line.slice(last), FACT_MAX_CHARS);
}
