/**
 * Renders the monitor's own news (`monitor.blind`, `monitor.recovered`) as an email and as a
 * team-chat message: what happened to our view of the vendor, since when, and what we last knew.
 */
import type { ChannelMessage } from './channel-message.ts';
import { escapeMrkdwn } from './channel-message.ts';
import { escapeHtml, htmlFooter, htmlHead, subscriberHeaders, textFooter, timeFormatter, type EmailContext, type RenderedEmail } from './email-render.ts';
import type { MonitorEventData } from './events.ts';
import { oneLine, servicesLabel, truncate } from './notification-message.ts';

/** Incidents named as "what we last knew" in a blind event; the rest are counted. */
export const MONITOR_KNOWN_INCIDENTS_MAX = 5;
/** The poll's error as the event keeps it: it names every endpoint's failure. */
export const MONITOR_ERROR_MAX_CHARS = 500;
const TITLE_MAX_CHARS = 120;

export function monitorSubject(data: MonitorEventData): string {
  return data.type === 'monitor.blind'
    ? "[Blind] statuswatch cannot read the vendor's status feed"
    : "[Recovered] statuswatch reads the vendor's status feed again";
}

/** Minutes, hours and minutes, or days and hours: "2 h 5 min". */
export function durationText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days ${hours % 24} h`;
}

/** The body as lines of plain text, times in `formatTime`'s zone. */
export function monitorLines(data: MonitorEventData, formatTime: (ms: number) => string): string[] {
  const since = data.since === null ? null : formatTime(Date.parse(data.since));
  if (data.type === 'monitor.recovered') {
    return [
      `statuswatch reads the vendor's status feed again, since ${formatTime(Date.parse(data.recovered_at))}.`,
      data.blind_for_ms === null ? 'It had never been read before.' : `It could not be read for ${durationText(data.blind_for_ms)} (no data since ${since}).`,
      'Changes found on recovery arrive as their own messages.',
    ];
  }
  const ongoing = data.last_known.ongoing.map(
    (incident) =>
      `- ${truncate(oneLine(incident.title), TITLE_MAX_CHARS)} (${oneLine(incident.type)}, ${oneLine(incident.status)}; ${servicesLabel(incident.services)})`,
  );
  return [
    since === null
      ? "statuswatch has never been able to read the vendor's status feed: nothing is known about its services."
      : `statuswatch cannot read the vendor's status feed: no data since ${since}. Until it can, nothing is known about how the services stand.`,
    `Last error: ${oneLine(data.last_error)}`,
    ...(since === null
      ? []
      : ongoing.length === 0
        ? ['When last read, no incident was going on.']
        : ['When last read, these incidents were going on:', ...ongoing, ...(data.last_known.more > 0 ? [`and ${data.last_known.more} more`] : [])]),
  ];
}

export function renderMonitorEmail(data: MonitorEventData, context: Omit<EmailContext, 'sanitizeHtml'>): RenderedEmail {
  const subject = monitorSubject(data);
  const lines = monitorLines(data, timeFormatter(context.timeZone));
  const unsubscribeUrl = oneLine(context.unsubscribeUrl);
  const manageUrl = context.manageUrl === null ? null : oneLine(context.manageUrl);
  const dashboard = `${context.publicUrl.replace(/\/+$/, '')}/`;
  const text = [subject, '', ...lines, '', `Dashboard: ${dashboard}`, '', ...textFooter(manageUrl, unsubscribeUrl)].join('\n');
  const html = [
    ...htmlHead(subject),
    `<p>${lines.map(escapeHtml).join('<br>')}</p>`,
    `<p><a href="${escapeHtml(dashboard)}">Dashboard</a></p>`,
    htmlFooter(manageUrl, unsubscribeUrl),
    '</body></html>',
  ].join('\n');
  return {
    subject,
    text,
    html,
    headers: subscriberHeaders(unsubscribeUrl),
  };
}

/** For the admin (ADMIN_EMAIL): the same words, no subscriber links. */
export function renderMonitorAdminEmail(data: MonitorEventData, publicUrl: string): { subject: string; text: string } {
  const lines = monitorLines(data, timeFormatter('UTC'));
  return {
    subject: `[statuswatch] ${monitorSubject(data).replace(/^\[\w+\] statuswatch /, '')}`,
    text: [...lines, '', `Dashboard: ${publicUrl.replace(/\/+$/, '')}/`, ''].join('\n'),
  };
}

export function renderMonitorChannelMessage(data: MonitorEventData): ChannelMessage {
  const subject = monitorSubject(data);
  const lines = monitorLines(data, timeFormatter('UTC'));
  return {
    text: escapeMrkdwn(subject),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: escapeMrkdwn(subject), emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(lines.join('\n')), verbatim: true } },
    ],
  };
}
