/**
 * Renders a watched page's component that changed state (`component.status_changed`) as an email
 * and as a team-chat message: which page, which component, from what to what, in the page's own
 * words and in ours. Every name is the vendor's text: made one line here, escaped by each channel.
 */
import { escapeMrkdwn, headerBlock, link, type ChannelMessage } from './channel-message.ts';
import { escapeHtml, htmlFooter, htmlHead, subscriberHeaders, textFooter, type EmailContext, type RenderedEmail } from './email-render.ts';
import type { ComponentEventData } from './events.ts';
import { COMPONENT_STATUS_WORDS } from './source-state.ts';
import { oneLine, truncate } from './notification-message.ts';
import { groupedComponentName } from './statuspage/mapping.ts';
import type { ComponentStatus } from './statuspage/schema.ts';

/** Longest page or component name a subject keeps (a source's name is at most 100 characters already). */
const NAME_MAX_CHARS = 100;

/** The component as the page lists it: "Core / API" when it sits in a group. */
export function componentLabel(data: Pick<ComponentEventData, 'component'>): string {
  const { name, group } = data.component;
  const own = truncate(oneLine(name), NAME_MAX_CHARS);
  return group === undefined ? own : groupedComponentName(truncate(oneLine(group), NAME_MAX_CHARS), own);
}

/** The page's own word spelt out for people ("major outage"); a word we do not know, as the page wrote it. */
export function componentWords(vendorWord: string): string {
  return Object.hasOwn(COMPONENT_STATUS_WORDS, vendorWord) && vendorWord !== 'unknown'
    ? COMPONENT_STATUS_WORDS[vendorWord as ComponentStatus]
    : truncate(oneLine(vendorWord), NAME_MAX_CHARS);
}

/** `[Outage] Paystream · Card payments: major outage`, on one line and of bounded length. */
export function componentSubject(data: ComponentEventData): string {
  return `[${oneLine(data.to_state)}] ${truncate(oneLine(data.source.name), NAME_MAX_CHARS)} · ${componentLabel(data)}: ${componentWords(data.to)}`;
}

/** The body as lines of plain text. */
export function componentLines(data: ComponentEventData): string[] {
  return [
    `${oneLine(data.source.name)} shows ${componentLabel(data)} as ${componentWords(data.to)} (${oneLine(data.to_state)}); it was ${componentWords(data.from)} (${oneLine(data.from_state)}).`,
    'The page changed the state of the component itself; an incident about it, if the page opens one, arrives as its own message.',
  ];
}

/** Our page of the source: its components and incidents. */
export function sourcePageUrl(publicUrl: string, sourceId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/sources/${encodeURIComponent(sourceId)}`;
}

export function renderComponentEmail(data: ComponentEventData, context: Omit<EmailContext, 'sanitizeHtml'>): RenderedEmail {
  const subject = componentSubject(data);
  const lines = componentLines(data);
  const unsubscribeUrl = oneLine(context.unsubscribeUrl);
  const manageUrl = context.manageUrl === null ? null : oneLine(context.manageUrl);
  const page = sourcePageUrl(context.publicUrl, data.source.id);
  const text = [subject, '', ...lines, '', `The page on statuswatch: ${page}`, '', ...textFooter(manageUrl, unsubscribeUrl)].join('\n');
  const html = [
    ...htmlHead(subject),
    `<p>${lines.map(escapeHtml).join('<br>')}</p>`,
    `<p><a href="${escapeHtml(page)}">The page on statuswatch</a></p>`,
    htmlFooter(manageUrl, unsubscribeUrl),
    '</body></html>',
  ].join('\n');
  return { subject, text, html, headers: subscriberHeaders(unsubscribeUrl) };
}

export function renderComponentChannelMessage(data: ComponentEventData, context: { publicUrl: string }): ChannelMessage {
  const subject = componentSubject(data);
  const page = sourcePageUrl(context.publicUrl, data.source.id);
  return {
    text: escapeMrkdwn(subject),
    blocks: [
      headerBlock(subject),
      { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(componentLines(data).join('\n')), verbatim: true } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: link(page, 'The page on statuswatch'), verbatim: true }] },
    ],
  };
}
