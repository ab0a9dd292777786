/**
 * The workspace app's messages about an incident, as blocks with a text fallback: the
 * root, which always shows the incident as it stands, and the thread reply that says what one
 * poll changed. Vendor text is escaped for the vendor's mrkdwn; every length stays inside the
 * vendor's limits (a header of 150 characters, a section of 3,000, 50 blocks).
 */
import {
  escapedWithin,
  escapeMrkdwn,
  headerBlock,
  incidentLinksBlock,
  mrkdwnDate,
  statusAndServicesBlock,
  type ChannelBlock,
  type ChannelMessage,
} from '../channel-message.ts';
import type { IncidentSummary, NoteRef } from '../events.ts';
import {
  changeLines,
  messageHeadline,
  namedTitle,
  noteText,
  oneLine,
  servicesList,
  statusText,
  statusWord,
  type IncidentUpdate,
} from '../notification-message.ts';
import type { ChatMetadata } from '../ports.ts';
import { parseVendorTime } from '../vendor-time.ts';

export type AppMessageContext = { publicUrl: string };

/**
 * What the root shows: the incident as the newest delivery saw it, and the newest note we know.
 * `vendor`: the page's name for a source's incident (IncidentUpdate), null for the main feed's.
 */
export type AppRootView = { incident: IncidentSummary; note: NoteRef | null; vendor: string | null };

/** The root's note: long enough to read, short enough that the root stays a summary. */
export const ROOT_NOTE_MAX_CHARS = 500;
/** A reply's note: a section's text is at most 3,000 characters, escaping can lengthen it. */
export const REPLY_NOTE_MAX_CHARS = 2_000;
/** The fallback text (notifications, old clients); far under the vendor's 40,000. */
const FALLBACK_MAX_CHARS = 300;

/** Metadata event types: the root names its incident, a reply or a monitor message the delivery that posted it. */
const ROOT_EVENT_TYPE = 'statuswatch_incident';
const REPLY_EVENT_TYPE = 'statuswatch_update';
export const MONITOR_EVENT_TYPE = 'statuswatch_monitor';

export function rootMetadata(incidentId: string): ChatMetadata {
  return { eventType: ROOT_EVENT_TYPE, eventPayload: { incident_id: incidentId } };
}

export function replyMetadata(incidentId: string, deliveryKey: string): ChatMetadata {
  return { eventType: REPLY_EVENT_TYPE, eventPayload: { incident_id: incidentId, delivery_key: deliveryKey } };
}

export function monitorMetadata(deliveryKey: string): ChatMetadata {
  return { eventType: MONITOR_EVENT_TYPE, eventPayload: { delivery_key: deliveryKey } };
}

/** Whether a message's metadata is our root of this incident, or our reply or monitor message for this delivery. */
export function isRootOf(metadata: ChatMetadata | null, incidentId: string): boolean {
  return metadata?.eventType === ROOT_EVENT_TYPE && metadata.eventPayload.incident_id === incidentId;
}

export function isReplyOf(metadata: ChatMetadata | null, deliveryKey: string): boolean {
  return metadata?.eventType === REPLY_EVENT_TYPE && metadata.eventPayload.delivery_key === deliveryKey;
}

export function isMonitorPostOf(metadata: ChatMetadata | null, deliveryKey: string): boolean {
  return metadata?.eventType === MONITOR_EVENT_TYPE && metadata.eventPayload.delivery_key === deliveryKey;
}

/** The view after an update: its incident, and its note if it brought one (else the one shown). */
export function nextRootView(shown: AppRootView | null, update: IncidentUpdate): AppRootView {
  return { incident: update.incident, note: update.note ?? shown?.note ?? null, vendor: update.vendor };
}

/** The root: `Investigating: Files fail to upload`, status and services, the latest note, the links. */
export function renderAppRoot(view: AppRootView, context: AppMessageContext): ChannelMessage {
  const { incident, note } = view;
  const status = statusWord(incident.status);
  const title = namedTitle(incident.title, view.vendor);
  const services = servicesList(incident.services);
  const header = `${status}: ${title}`;
  const blocks: ChannelBlock[] = [headerBlock(header), statusAndServicesBlock(status, services)];
  const shown = note ? escapedWithin(noteText(note.body), ROOT_NOTE_MAX_CHARS) : '';
  if (shown !== '') blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Latest note*\n${shown}`, verbatim: true } });
  blocks.push(incidentLinksBlock(incident, context.publicUrl));
  const updated = oneLine(incident.date_updated);
  // The vendor writes its own offset; each reader sees their own zone. The feed's parser refuses a
  // time it cannot read, so the escaped text is only a guard.
  const updatedMs = parseVendorTime(updated)?.ms;
  const shownUpdated = updatedMs === undefined ? escapedWithin(updated, 60) : mrkdwnDate(updatedMs);
  if (updated !== '') blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Updated ${shownUpdated}`, verbatim: true }] });
  const text = escapedWithin(`${header} (${services})`, FALLBACK_MAX_CHARS);
  return { text, blocks };
}

/** A thread reply: what this update changed (status, notes, edits), and its note in full (bounded). */
export function renderAppReply(update: IncidentUpdate): ChannelMessage {
  const { label } = messageHeadline(update);
  const lines = [...(update.status ? [`Status: ${statusText(update)}.`] : []), ...changeLines(update)];
  const summary = lines.length > 0 ? lines.join(' ') : `Status: ${statusWord(update.incident.status)}.`;
  const blocks: ChannelBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(label)}* · ${escapedWithin(summary, 1_000)}`, verbatim: true } },
  ];
  const note = update.note ? noteText(update.note.body) : '';
  if (note !== '') blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escapedWithin(note, REPLY_NOTE_MAX_CHARS), verbatim: true } });
  const text = escapedWithin(`${label}: ${summary}${note !== '' ? ` ${note}` : ''}`, FALLBACK_MAX_CHARS);
  return { text, blocks };
}
