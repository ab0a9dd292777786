/** Renders one incident update as the JSON body of a team-chat incoming webhook (Slack Block Kit shape). */
import {
  changeLines,
  incidentPageUrl,
  messageHeadline,
  noteText,
  servicesList,
  statusText,
  statusWord,
  truncate,
  vendorUrl,
  type IncidentUpdate,
} from './notification-message.ts';

export type ChannelContext = { publicUrl: string };

type TextObject = { type: 'plain_text'; text: string; emoji?: boolean } | { type: 'mrkdwn'; text: string; verbatim?: boolean };
export type ChannelBlock =
  | { type: 'header'; text: TextObject }
  | { type: 'section'; text?: TextObject; fields?: TextObject[] }
  | { type: 'context'; elements: TextObject[] };

export type ChannelMessage = { text: string; blocks: ChannelBlock[] };

/** Longest note shown, in characters; the rest is on our incident page. */
export const CHANNEL_NOTE_MAX_CHARS = 500;
/** The platform refuses a header longer than 150 characters. */
const HEADER_MAX_CHARS = 150;

export function renderChannelMessage(update: IncidentUpdate, context: ChannelContext): ChannelMessage {
  const { label, title } = messageHeadline(update);
  const { incident, note } = update;
  const services = servicesList(incident.services);
  const titleLine = truncate(`${label}: ${title}`, HEADER_MAX_CHARS);
  const blocks: ChannelBlock[] = [headerBlock(titleLine), statusAndServicesBlock(statusText(update), services)];
  const changes = changeLines(update);
  if (changes.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(changes.join(' ')), verbatim: true }] });
  if (note) {
    const shown = escapedWithin(noteText(note.body), CHANNEL_NOTE_MAX_CHARS);
    if (shown !== '') blocks.push({ type: 'section', text: { type: 'mrkdwn', text: shown, verbatim: true } });
  }
  blocks.push(incidentLinksBlock(incident, context.publicUrl));

  const text = escapeMrkdwn(`${titleLine} (${statusWord(incident.status)}; ${services})`);
  return { text, blocks };
}

// The blocks below are shared with the workspace app's messages (workspace-app/message.ts). Every text
// object is mrkdwn-escaped, plain_text too: the platform decodes &amp; &lt; &gt; in all text, and
// the top-level `text` (the notification preview) is always parsed. `verbatim` keeps it from
// turning words in vendor text into links or mentions.

/** The message's header: at most HEADER_MAX_CHARS, as the platform requires. */
export function headerBlock(text: string): ChannelBlock {
  return { type: 'header', text: { type: 'plain_text', text: escapedWithin(text, HEADER_MAX_CHARS), emoji: false } };
}

/** Status and services side by side; a field holds at most 2,000 characters. */
export function statusAndServicesBlock(status: string, services: string): ChannelBlock {
  return {
    type: 'section',
    fields: [
      { type: 'mrkdwn', text: `*Status*\n${escapedWithin(status, FIELD_TEXT_MAX_CHARS)}`, verbatim: true },
      { type: 'mrkdwn', text: `*Services*\n${escapedWithin(services, FIELD_TEXT_MAX_CHARS)}`, verbatim: true },
    ],
  };
}

/** *View the incident* (our page) and, when the vendor has one, its page. */
export function incidentLinksBlock(incident: { id: string; url: string }, publicUrl: string): ChannelBlock {
  const theirs = vendorUrl(incident.url);
  const links = [link(incidentPageUrl(publicUrl, incident.id), 'View the incident'), ...(theirs ? [link(theirs, 'Vendor status page')] : [])];
  return { type: 'section', text: { type: 'mrkdwn', text: links.join(' · '), verbatim: true } };
}

/** What a section field shows of a list at most, escaped: the platform takes 2,000 per field. */
const FIELD_TEXT_MAX_CHARS = 1_000;

/**
 * `text` escaped, then cut to `maxChars` as sent: escaping can make vendor text five times as long
 * (`&` is `&amp;`), and the platform's limits count what it receives. A cut never leaves half an
 * entity behind.
 */
export function escapedWithin(text: string, maxChars: number): string {
  const escaped = escapeMrkdwn(text);
  const cut = truncate(escaped, maxChars);
  return cut === escaped ? escaped : cut.replace(/&[a-z]{0,3}…$/, '…');
}

/** `&`, `<` and `>` are the platform's control characters: escaped, vendor text cannot write `<!channel>` or a link. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The vendor's date formatting token, `<!date^EPOCH^{date_short_pretty} at {time}|fallback>`: each
 * reader's client shows the instant in the reader's own zone ("today at 9:52 PM"); a client that
 * cannot reads the fallback, the same instant in UTC. Minute precision: the feed's times are
 * to the second, but no reader acts on seconds.
 */
export function mrkdwnDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC>`;
}

/** `<url|label>`: inside the brackets `|` and `>` would end the URL early, so they are percent-encoded. */
export function link(url: string, label: string): string {
  const safe = url.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');
  return `<${safe}|${escapeMrkdwn(label)}>`;
}
