/**
 * What `/status [service or page name]` answers: the widget's data as a short message in the
 * vendor's mrkdwn, only to the person who asked. Unknown stays unknown: while statuswatch cannot
 * read the feed it says so instead of a state, and a service name it never saw is answered as such.
 */
import { readsFailingWords } from '../knowledge.ts';
import { truncate } from '../notification-message.ts';
import type { WidgetJson, WidgetState } from '../widget-state.ts';

/** Incidents listed in one answer; the dashboard link has the rest. */
export const SLASH_INCIDENTS_MAX = 10;

/** Watched pages named when none has the name asked for; the dashboard's overview lists them all. */
export const SLASH_PAGES_LISTED = 20;

/** A name (asked, or a page's or component's own) is cut to this many characters in an answer. */
const SLASH_NAME_MAX_CHARS = 64;

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

/**
 * The state of the vendor, of one of its services (`asked`), or of a watched page (the widget of
 * `?source=`, which names it): the widget's state in the same words, its incidents, and for a page
 * its components not operational.
 */
export function slashStatusAnswer(widget: WidgetJson, asked: string | null): SlashAnswer {
  const page = widget.source;
  const subject = asked !== null ? escapeMrkdwn(asked) : page ? escapeMrkdwn(truncate(page.name, SLASH_NAME_MAX_CHARS)) : 'The vendor';
  const read = page ? 'its status page' : "the vendor's status feed";
  const lines: string[] = [];
  if (widget.stale) {
    const since = widget.unknown_since ? ` since ${widget.unknown_since}` : '';
    lines.push(`*${subject}: unknown.* statuswatch has not been able to read ${read}${since}, so it cannot say how things stand now.`);
    if (widget.last_known_state) lines.push(`Last known: ${STATE_WORDS[widget.last_known_state]}.`);
  } else if (widget.state === 'ok') {
    lines.push(`*${subject}: all good.* No incident is going on${asked === null ? '' : ' for this service'}.`);
  } else {
    lines.push(`*${subject}: ${STATE_WORDS[widget.state]}.*`);
  }
  if (!widget.stale && widget.reads_failing && widget.last_read_at) lines.push(readsFailingWords(widget.last_read_at));
  // A page's components flip without an incident: which ones are not operational says why.
  if (page && asked === null && !widget.stale) {
    for (const service of widget.services.slice(0, SLASH_INCIDENTS_MAX)) {
      lines.push(`• ${escapeMrkdwn(truncate(service.name, SLASH_NAME_MAX_CHARS))}: ${STATE_WORDS[service.state]}`);
    }
  }
  for (const incident of widget.incidents.slice(0, SLASH_INCIDENTS_MAX)) {
    const services = incident.services.length > 0 ? ` (${escapeMrkdwn(truncate(incident.services.join(', '), 200))})` : '';
    lines.push(`• ${link(incident.url, incident.title)}: ${STATE_WORDS[incident.state]}, ${escapeMrkdwn(incident.status)}${services}`);
  }
  if (widget.incidents.length > SLASH_INCIDENTS_MAX) lines.push(`…and ${widget.incidents.length - SLASH_INCIDENTS_MAX} more.`);
  lines.push(
    page ? link(`${widget.url}sources/${encodeURIComponent(page.id)}`, 'Open its page on the status dashboard') : link(widget.url, 'Open the status dashboard'),
  );
  return { response_type: 'ephemeral', text: lines.join('\n') };
}

/**
 * Neither a service nor a watched page of that name: said plainly, with the services statuswatch
 * knows and the pages it watches (at most SLASH_PAGES_LISTED of them, then how many more).
 */
export function slashUnknownServiceAnswer(asked: string, known: readonly string[], dashboardUrl: string, pageNames: readonly string[] = []): SlashAnswer {
  const what = pageNames.length > 0 ? 'service or watched status page' : 'service';
  const lines = [
    `statuswatch knows no ${what} called “${escapeMrkdwn(truncate(asked, SLASH_NAME_MAX_CHARS))}”, so its state is unknown.`,
    `Known services: ${escapeMrkdwn(known.join(', '))}.`,
  ];
  if (pageNames.length > 0) {
    const shown = pageNames.slice(0, SLASH_PAGES_LISTED).map((name) => escapeMrkdwn(truncate(name, SLASH_NAME_MAX_CHARS)));
    const more = pageNames.length > shown.length ? ` and ${pageNames.length - shown.length} more` : '';
    lines.push(`Watched status pages (\`/status <page name>\`): ${shown.join(', ')}${more}.`);
  }
  lines.push(link(dashboardUrl, 'Open the status dashboard'));
  return { response_type: 'ephemeral', text: lines.join('\n') };
}
