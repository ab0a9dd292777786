/**
 * `/embed`, the widget as a page for an iframe. It works without scripts: the server writes the
 * widget's content into the <statuswatch-widget> element, where a browser without scripts shows
 * it; with scripts, public/widget.js gives the element a shadow root, which hides that content and
 * draws the same from /widget.json, refreshed every minute. The words, states and parts here are
 * those of widget.js (`_render`), so both read the same.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { readsFailingWords } from '../core/knowledge.ts';
import { SERVICE_STATE_WORDS, type WidgetJson, type WidgetState } from '../core/widget-state.ts';
import { utcText } from './pages/time.tsx';

/** As widget.js shows them: the first five incidents, then "and N more". */
const INCIDENTS_SHOWN = 5;

const LABELS: Record<WidgetState, string> = {
  ok: 'Operational',
  unknown: 'Unknown service',
  maintenance: 'Maintenance',
  notice: 'Notice',
  incident: 'Incident',
  outage: 'Outage',
};
const HEADLINES: Record<WidgetState, string> = {
  ok: 'All systems operational',
  unknown: 'Unknown service',
  maintenance: 'Scheduled maintenance',
  notice: 'Service notice',
  incident: 'Ongoing incident',
  outage: 'Service outage',
};

/**
 * The element's shadow styles (public/widget.js) for the same markup outside a shadow root, scoped
 * under `.widget`. The page's CSP allows inline style; no vendor text reaches this sheet. Each
 * state's colour is also its label's text colour, so each reads at 4.5:1 or more on its background.
 */
const FALLBACK_CSS = `
html,body{margin:0;background:transparent}
statuswatch-widget{display:block;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  --sw-fg:#1f2328;--sw-muted:#59636e;--sw-bg:#fff;--sw-border:#d1d9e0;
  --sw-ok:#1a7f37;--sw-maintenance:#0969da;--sw-notice:#9a6700;--sw-incident:#bc4c00;--sw-outage:#cf222e;--sw-unknown:#59636e}
statuswatch-widget[theme="dark"]{--sw-fg:#f0f6fc;--sw-muted:#9198a1;--sw-bg:#151b23;--sw-border:#3d444d;
  --sw-ok:#3fb950;--sw-maintenance:#4493f8;--sw-notice:#d29922;--sw-incident:#db6d28;--sw-outage:#f85149;--sw-unknown:#9198a1}
@media (prefers-color-scheme:dark){statuswatch-widget:not([theme="light"]):not([theme="dark"]){--sw-fg:#f0f6fc;--sw-muted:#9198a1;--sw-bg:#151b23;--sw-border:#3d444d;
  --sw-ok:#3fb950;--sw-maintenance:#4493f8;--sw-notice:#d29922;--sw-incident:#db6d28;--sw-outage:#f85149;--sw-unknown:#9198a1}}
.widget{color:var(--sw-fg);background:var(--sw-bg);border:1px solid var(--sw-border);border-radius:8px;padding:10px 12px}
.widget a{color:inherit}
.headline{display:flex;align-items:center;gap:8px;font-weight:600;text-decoration:none}
a.headline:hover,.incident a:hover{text-decoration:underline}
.dot{flex:none;width:10px;height:10px;border-radius:50%;background:var(--sw-c,var(--sw-unknown))}
.state-ok{--sw-c:var(--sw-ok)}.state-maintenance{--sw-c:var(--sw-maintenance)}.state-notice{--sw-c:var(--sw-notice)}
.state-incident{--sw-c:var(--sw-incident)}.state-outage{--sw-c:var(--sw-outage)}.state-unknown{--sw-c:var(--sw-unknown)}
.widget ul{list-style:none;margin:8px 0 0;padding:0}
.widget li{display:flex;align-items:baseline;gap:8px;margin:2px 0}
.name{flex:1;min-width:0;overflow-wrap:anywhere}
.label{color:var(--sw-c);font-size:12px}
.widget li.incident{flex-direction:column;gap:0}
.incident a{overflow-wrap:anywhere}
.meta,.stale{color:var(--sw-muted);font-size:12px}
.stale{margin:8px 0 0}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap;border:0}
`;

/** A state the vendor's data can carry that this page does not know is shown as a notice, as widget.js does. */
const known = (state: string): WidgetState => (Object.hasOwn(LABELS, state) ? (state as WidgetState) : 'notice');

function staleText(widget: WidgetJson): string {
  const since = widget.unknown_since ? Date.parse(widget.unknown_since) : Number.NaN;
  if (Number.isNaN(since)) return "The vendor's status feed has not been read yet: no data.";
  const last = widget.last_known_state ? ` Last known: ${HEADLINES[known(widget.last_known_state)]}.` : '';
  return `The vendor's status feed cannot be read: no data since ${utcText(since)}.${last}`;
}

/**
 * A service's state in the words of the dashboard's rows; a name statuswatch never saw (while the
 * feed is read) is an "Unknown service", not a state we cannot see.
 */
function serviceLabel(widget: WidgetJson, state: WidgetState): string {
  if (widget.stale) return SERVICE_STATE_WORDS.unknown;
  return state === 'unknown' ? LABELS.unknown : SERVICE_STATE_WORDS[state];
}

/** While the latest reads failed: the state shown is as of the last good read, and says so. */
function asOfLine(widget: WidgetJson): HtmlEscapedString | Promise<HtmlEscapedString> | string {
  const at = widget.reads_failing && widget.last_read_at ? Date.parse(widget.last_read_at) : Number.NaN;
  return Number.isNaN(at) ? '' : html`<p class="stale" data-reads-failing="true">${readsFailingWords(utcText(at))}</p>`;
}

/**
 * The widget's content as markup: the classes and words widget.js draws. No `part` attributes:
 * parts name the shadow root's pieces, and this copy is never in one.
 */
function widgetContent(widget: WidgetJson): HtmlEscapedString | Promise<HtmlEscapedString> {
  const state = known(widget.state);
  const headline = widget.stale ? 'Status unknown' : HEADLINES[state];
  const services = widget.services.map((service) => {
    const serviceState = known(service.state);
    return html`<li class="service state-${serviceState}" data-state="${serviceState}"><span class="dot" aria-hidden="true"></span><span class="name">${service.name}</span><span class="label">${serviceLabel(widget, serviceState)}</span></li>`;
  });
  const incidents = widget.incidents.slice(0, INCIDENTS_SHOWN).map((incident) => {
    const incidentState = known(incident.state);
    const meta = [LABELS[incidentState], incident.services.join(', ')].filter(Boolean).join(' · ');
    return html`<li class="incident state-${incidentState}" data-state="${incidentState}" data-id="${incident.id}"><a class="title" href="incidents/${encodeURIComponent(incident.id)}" target="_blank" rel="noopener noreferrer">${incident.title}</a><span class="meta">${meta}</span></li>`;
  });
  const more = widget.incidents.length - INCIDENTS_SHOWN;
  return html`<div class="widget state-${state}" data-state="${state}"${widget.stale ? html` data-stale="true"` : ''}><a class="headline" href="./" target="_blank" rel="noopener noreferrer"><span class="dot" aria-hidden="true"></span><span class="summary">${headline}</span></a>${
    widget.stale ? html`<p class="stale">${staleText(widget)}</p>` : asOfLine(widget)
  }${services.length > 0 ? html`<ul class="services">${services}</ul>` : ''}${
    incidents.length > 0 ? html`<ul class="incidents">${incidents}${more > 0 ? html`<li class="more">and ${more} more</li>` : ''}</ul>` : ''
  }</div>`;
}

/**
 * The whole page. Relative URLs, links included: it works the same behind a proxy that serves
 * statuswatch under a path, and nothing in it names another origin. Though it is read inside an
 * iframe, it is a page of its own to a screen reader: a main landmark and a heading (unseen: the
 * widget's headline is what a reader sees) let one find it and say what it is.
 */
export function embedPage(props: { widget: WidgetJson; services: string | undefined; theme: string; source?: string }) {
  const title = props.widget.source ? `${props.widget.source.name}: service status` : 'Service status';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${raw(FALLBACK_CSS)}</style>
<script src="widget.js" async></script>
</head>
<body>
<main>
<h1 class="visually-hidden">${title}</h1>
<statuswatch-widget${props.services ? html` services="${props.services}"` : ''}${props.source ? html` source="${props.source}"` : ''} theme="${props.theme}">${widgetContent(props.widget)}</statuswatch-widget>
</main>
</body>
</html>
`;
}
