/**
 * What `/status [service]` answers: the widget's data as a short message in the
 * vendor's mrkdwn, only to the person who asked. Unknown stays unknown: while statuswatch cannot
 * read the feed it says so instead of a state, and a service name it never saw is answered as such.
 */
import { readsFailingWords } from '../knowledge.ts';
import { truncate } from '../notification-message.ts';
import type { WidgetJson, WidgetState } from '../widget-state.ts';

/** Incidents listed in one answer; the dashboard link has the rest. */
export const SLASH_INCIDENTS_MAX = 10;

export type SlashAnswer = { response_type: 'ephemeral'; text: string };

const STATE_WORDS: Record<WidgetState, string> = {
  ok: 'All good',
  unknown: 'Unknown',
  maintenance: 'Maintenance',
  notice: 'Notice',
  incident: 'Incident',
  outage: 'Outage',
};

/** mrkdwn treats &, < and > as markup: text from the vendor or the asker is escaped so it stays text. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A link whose label cannot end it early: `|` and `>` in the label are escaped or dropped. */
function link(url: string, label: string): string {
  return `<${url}|${escapeMrkdwn(label).replace(/\|/g, '¦')}>`;
}

export function slashStatusAnswer(widget: WidgetJson, asked: string | null): SlashAnswer {
  const subject = asked === null ? 'The vendor' : escapeMrkdwn(asked);
  const lines: string[] = [];
  if (widget.stale) {
    const since = widget.unknown_since ? ` since ${widget.unknown_since}` : '';
    lines.push(`*${subject}: unknown.* statuswatch has not been able to read the vendor's status feed${since}, so it cannot say how things stand now.`);
    if (widget.last_known_state) lines.push(`Last known: ${STATE_WORDS[widget.last_known_state]}.`);
  } else if (widget.state === 'ok') {
    lines.push(`*${subject}: all good.* No incident is going on${asked === null ? '' : ' for this service'}.`);
  } else {
    lines.push(`*${subject}: ${STATE_WORDS[widget.state]}.*`);
  }
  if (!widget.stale && widget.reads_failing && widget.last_read_at) lines.push(readsFailingWords(widget.last_read_at));
  for (const incident of widget.incidents.slice(0, SLASH_INCIDENTS_MAX)) {
    const services = incident.services.length > 0 ? ` (${escapeMrkdwn(truncate(incident.services.join(', '), 200))})` : '';
    lines.push(`• ${link(incident.url, incident.title)}: ${STATE_WORDS[incident.state]}, ${escapeMrkdwn(incident.status)}${services}`);
  }
  if (widget.incidents.length > SLASH_INCIDENTS_MAX) lines.push(`…and ${widget.incidents.length - SLASH_INCIDENTS_MAX} more.`);
  lines.push(link(widget.url, 'Open the status dashboard'));
  return { response_type: 'ephemeral', text: lines.join('\n') };
}

/** A service name statuswatch never saw: said plainly, with the names it knows. */
export function slashUnknownServiceAnswer(asked: string, known: readonly string[], dashboardUrl: string): SlashAnswer {
  const text = [
    `statuswatch knows no service called “${escapeMrkdwn(truncate(asked, 64))}”, so its state is unknown.`,
    `Known services: ${escapeMrkdwn(known.join(', '))}.`,
    link(dashboardUrl, 'Open the status dashboard'),
  ].join('\n');
  return { response_type: 'ephemeral', text };
}
