/** Renders one incident update as an email (subject, text part, HTML part, list headers) for one subscriber. */
import {
  changeLines,
  emailSubject,
  incidentPageUrl,
  isHtmlNote,
  noteText,
  oneLine,
  servicesList,
  statusText,
  statusWord,
  vendorUrl,
  type IncidentUpdate,
} from './notification-message.ts';
import { canonicalTimeZone } from './subscription.ts';
import { parseVendorTime } from './vendor-time.ts';

export type EmailContext = {
  publicUrl: string;
  /** The subscriber's IANA zone ("America/Los_Angeles"); an unknown one falls back to UTC. */
  timeZone: string;
  /** One-click unsubscribe (RFC 8058): the URL that takes the POST. */
  unsubscribeUrl: string;
  /**
   * The page where the subscriber changes what they receive; null when there is none (a directory
   * group's member: what the group receives is the admin's to set), and the footer says so.
   */
  manageUrl: string | null;
  /** Cleans a note body for the HTML part (adapters/html-sanitizer.ts); the core has no parser. */
  sanitizeHtml: (html: string) => string;
};

export type RenderedEmail = { subject: string; text: string; html: string; headers: Record<string, string> };

export function renderEmail(update: IncidentUpdate, context: EmailContext): RenderedEmail {
  const { incident, note } = update;
  const formatTime = timeFormatter(context.timeZone);
  const when = (raw: string) => {
    const time = parseVendorTime(raw);
    return time ? formatTime(time.ms) : oneLine(raw);
  };
  const ours = incidentPageUrl(context.publicUrl, incident.id);
  const theirs = vendorUrl(incident.url);
  const facts: [string, string][] = [
    ['Status', statusText(update)],
    ['Services', servicesList(incident.services)],
    ['Type', statusWord(incident.type)],
    ['Started', when(incident.date_created)],
    ['Updated', when(incident.date_updated)],
  ];
  const changes = changeLines(update);
  const noteHeading = note ? `Latest note, ${when(note.date_created)}` : null;
  const subject = emailSubject(update);
  const unsubscribeUrl = oneLine(context.unsubscribeUrl);
  const manageUrl = context.manageUrl === null ? null : oneLine(context.manageUrl);

  const text = [
    subject,
    '',
    ...changes,
    ...(changes.length > 0 ? [''] : []),
    ...facts.map(([name, value]) => `${name}: ${value}`),
    '',
    ...(note && noteHeading ? [`${noteHeading}:`, noteText(note.body) || '(empty note)', ''] : []),
    `Details: ${ours}`,
    ...(theirs ? [`Vendor status page: ${theirs}`] : []),
    '',
    ...textFooter(manageUrl, unsubscribeUrl),
  ].join('\n');

  const html = [
    ...htmlHead(subject),
    ...(changes.length > 0 ? [`<p>${changes.map(escapeHtml).join('<br>')}</p>`] : []),
    '<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:0 0 16px">',
    ...facts.map(
      ([name, value]) =>
        `<tr><td style="padding:2px 12px 2px 0;color:#6e6e73">${escapeHtml(name)}</td><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    ...(note && noteHeading
      ? [
          `<h2 style="font-size:15px;margin:0 0 6px">${escapeHtml(noteHeading)}</h2>`,
          `<div style="border-left:3px solid #d2d2d7;padding:0 0 0 12px;margin:0 0 16px">${context.sanitizeHtml(noteHtml(note.body))}</div>`,
        ]
      : []),
    `<p><a href="${escapeHtml(ours)}">View the incident</a>${theirs ? ` · <a href="${escapeHtml(theirs)}">Vendor status page</a>` : ''}</p>`,
    '<hr style="border:0;border-top:1px solid #d2d2d7;margin:24px 0 8px">',
    htmlFooter(manageUrl, unsubscribeUrl),
    '</body></html>',
    '',
  ].join('\n');

  return {
    subject,
    text,
    html,
    headers: subscriberHeaders(unsubscribeUrl),
  };
}

/** The opening every subscriber email's HTML part has: the document, its type, the subject as a heading. */
export function htmlHead(subject: string): string[] {
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.45;color:#1d1d1f">',
    `<h1 style="font-size:19px;margin:0 0 12px">${escapeHtml(subject)}</h1>`,
  ];
}

/** What a group member's footer says in place of a link to change what they receive: there is no such page for them. */
export const GROUP_MEMBER_FOOTER = 'You get this as a member of a directory group; what the group receives is set by your administrator.';

/** The signature every subscriber email's text part ends with: where to change what it gets (or who does), and to stop. */
export function textFooter(manageUrl: string | null, unsubscribeUrl: string): string[] {
  return ['-- ', manageUrl === null ? GROUP_MEMBER_FOOTER : `Change what you receive: ${manageUrl}`, `Unsubscribe: ${unsubscribeUrl}`, ''];
}

/** The same signature as the HTML part's last paragraph. */
export function htmlFooter(manageUrl: string | null, unsubscribeUrl: string): string {
  const manage = manageUrl === null ? escapeHtml(GROUP_MEMBER_FOOTER) : `<a href="${escapeHtml(manageUrl)}" style="color:#6e6e73">Change what you receive</a>`;
  return `<p style="font-size:13px;color:#6e6e73">${manage} · <a href="${escapeHtml(unsubscribeUrl)}" style="color:#6e6e73">Unsubscribe</a></p>`;
}

/** The headers of every email to a subscriber. */
export function subscriberHeaders(unsubscribeUrl: string): Record<string, string> {
  return {
    // RFC 8058: the mail client POSTs "List-Unsubscribe=One-Click" to this URL, no page needed.
    'List-Unsubscribe': `<${unsubscribeUrl}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    // RFC 3834: tells auto-responders (out-of-office) not to answer.
    'Auto-Submitted': 'auto-generated',
  };
}

/**
 * 2019-2023 notes are plain text with CRLF breaks: escaped and given <br> so the lines survive.
 * HTML notes go to the sanitiser as they are.
 */
function noteHtml(body: string): string {
  if (isHtmlNote(body)) return body;
  return escapeHtml(body).replace(/\r\n?|\n/g, '<br>');
}

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * "1 Oct 2026, 05:39 PDT" in `timeZone`. A zone Intl does not know (a typo stored through the
 * API, or a name newer than the runtime's tz data) falls back to UTC rather than failing the
 * mail; the label says "UTC", so the time shown is still true.
 */
export function timeFormatter(timeZone: string): (ms: number) => string {
  const zone = canonicalTimeZone(timeZone) ?? 'UTC';
  const clock = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  // en-US names the US zones (PDT, EST); elsewhere it gives an offset ("GMT+9"), never a guess.
  const zoneName = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' });
  return (ms) => {
    const date = new Date(ms);
    const name = zoneName.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? zone;
    return `${clock.format(date)} ${name}`;
  };
}
