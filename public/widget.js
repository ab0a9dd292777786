/*
 * statuswatch's embeddable status: <statuswatch-widget services="Files,Messaging" theme="auto">
 * (source="<id>" for a watched status page's, as GET /api/sources lists them),
 * loaded with <script src="https://status.example.com/widget.js" async>. No dependencies, shadow
 * DOM, and data only ever set as text. Markup for styling (::part) and tests: the root is
 * part="widget" with class "state-<state>" and data-state="<state>" (ok, unknown (a service name
 * statuswatch never saw, or every state while the feed cannot be read), maintenance, notice, incident, outage; loading and unavailable before and instead of data), data-stale="true" when
 * the feed was not read recently (headline "Status unknown"); parts "headline", "services", "service", "incidents",
 * "incident", "stale"; each service and incident carries data-state too.
 */
(() => {
  'use strict';
  const TAG = 'statuswatch-widget';
  if (!window.customElements || customElements.get(TAG)) return;

  // Only set while this file first runs: the data comes from where the script came from, so
  // statuswatch can live on any host (or under a path) without the embedding page saying so.
  const script = document.currentScript;
  const DATA_URL = new URL('widget.json', (script && script.src) || location.href);
  const REFRESH_MS = 60_000;
  const INCIDENTS_SHOWN = 5;

  // A service's state in words: core/widget-state.ts SERVICE_STATE_WORDS, as the dashboard's rows say it.
  const SERVICE_LABELS = { ok: 'Operational', unknown: 'Unknown', maintenance: 'Maintenance', notice: 'Operational', incident: 'Degraded', outage: 'Outage' };
  const LABELS = { ok: 'Operational', unknown: 'Unknown service', maintenance: 'Maintenance', notice: 'Notice', incident: 'Incident', outage: 'Outage' };
  const HEADLINES = {
    ok: 'All systems operational',
    // Grey, never green: nothing is known about a name the vendor never used (often a typo).
    unknown: 'Unknown service',
    maintenance: 'Scheduled maintenance',
    notice: 'Service notice',
    incident: 'Ongoing incident',
    outage: 'Service outage',
  };

  // Each state's colour is also its label's text colour, so each reads at 4.5:1 or more on its
  // background, in both themes (the grey of unknown included).
  const CSS = `
:host { display: block; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --sw-fg: #1f2328; --sw-muted: #59636e; --sw-bg: #fff; --sw-border: #d1d9e0;
  --sw-ok: #1a7f37; --sw-maintenance: #0969da; --sw-notice: #9a6700; --sw-incident: #bc4c00; --sw-outage: #cf222e; --sw-unknown: #59636e; }
:host([theme="dark"]) { --sw-fg: #f0f6fc; --sw-muted: #9198a1; --sw-bg: #151b23; --sw-border: #3d444d;
  --sw-ok: #3fb950; --sw-maintenance: #4493f8; --sw-notice: #d29922; --sw-incident: #db6d28; --sw-outage: #f85149; --sw-unknown: #9198a1; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"]):not([theme="dark"])) { --sw-fg: #f0f6fc; --sw-muted: #9198a1; --sw-bg: #151b23; --sw-border: #3d444d;
    --sw-ok: #3fb950; --sw-maintenance: #4493f8; --sw-notice: #d29922; --sw-incident: #db6d28; --sw-outage: #f85149; --sw-unknown: #9198a1; }
}
:host([hidden]) { display: none; }
.widget { color: var(--sw-fg); background: var(--sw-bg); border: 1px solid var(--sw-border); border-radius: 8px; padding: 10px 12px; }
a { color: inherit; }
.headline { display: flex; align-items: center; gap: 8px; font-weight: 600; text-decoration: none; }
a.headline:hover, .incident a:hover { text-decoration: underline; }
.dot { flex: none; width: 10px; height: 10px; border-radius: 50%; background: var(--sw-c, var(--sw-unknown)); }
.state-ok { --sw-c: var(--sw-ok); } .state-maintenance { --sw-c: var(--sw-maintenance); } .state-notice { --sw-c: var(--sw-notice); }
.state-incident { --sw-c: var(--sw-incident); } .state-outage { --sw-c: var(--sw-outage); } .state-unknown { --sw-c: var(--sw-unknown); }
ul { list-style: none; margin: 8px 0 0; padding: 0; }
li { display: flex; align-items: baseline; gap: 8px; margin: 2px 0; }
.name { flex: 1; min-width: 0; overflow-wrap: anywhere; }
.label { color: var(--sw-c); font-size: 12px; }
.incident { flex-direction: column; gap: 0; }
.incident a { overflow-wrap: anywhere; }
.meta, .stale { color: var(--sw-muted); font-size: 12px; }
.stale { margin: 8px 0 0; }
`;

  /** An element with a class and a part, its text set as text. */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) {
      node.className = className;
      node.setAttribute('part', className.split(' ')[0]);
    }
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  /** Only our own http(s) links become hrefs. */
  function safeHref(url) {
    try {
      const parsed = new URL(String(url), DATA_URL);
      return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
    } catch {
      return null;
    }
  }

  function link(url, className, text) {
    const href = safeHref(url);
    const node = el(href ? 'a' : 'span', className, text);
    if (href) {
      node.href = href;
      // In someone else's page or an iframe, the dashboard opens on its own.
      node.target = '_blank';
      node.rel = 'noopener noreferrer';
    }
    return node;
  }

  const known = (state) => (Object.prototype.hasOwnProperty.call(LABELS, state) ? state : 'notice');

  class StatuswatchWidget extends HTMLElement {
    static get observedAttributes() {
      return ['services', 'source'];
    }

    constructor() {
      super();
      this._root = this.attachShadow({ mode: 'open' });
      if ('adoptedStyleSheets' in this._root && window.CSSStyleSheet && 'replaceSync' in CSSStyleSheet.prototype) {
        // A constructed sheet is not inline style: an embedding page's strict CSP does not block it.
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
        this._root.adoptedStyleSheets = [sheet];
        this._style = null;
      } else {
        this._style = el('style', '', CSS);
      }
      this._timer = 0;
      this._request = null;
      this._text = null;
    }

    connectedCallback() {
      if (this._text === null) this._show(this._frame('loading', 'Loading status…'));
      this._load();
      clearInterval(this._timer);
      // A hidden tab skips its refreshes; the next one after it shows again catches up.
      this._timer = setInterval(() => document.hidden || this._load(), REFRESH_MS);
    }

    disconnectedCallback() {
      clearInterval(this._timer);
      this._timer = 0;
      if (this._request) this._request.abort();
    }

    attributeChangedCallback(name, previous, value) {
      // Before connectedCallback (an upgrade reports every attribute) the first load is still to come.
      if (previous !== value && this._timer) this._load();
    }

    _url() {
      const url = new URL(DATA_URL);
      const services = (this.getAttribute('services') || '').trim();
      if (services) url.searchParams.set('service', services);
      const source = (this.getAttribute('source') || '').trim();
      if (source) url.searchParams.set('source', source);
      return url;
    }

    async _load() {
      if (this._request) this._request.abort();
      const request = (this._request = new AbortController());
      try {
        // No cookies either way; the browser's cache revalidates with the ETag.
        const response = await fetch(this._url(), { credentials: 'omit', signal: request.signal });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const text = await response.text();
        // Most refreshes bring the same bytes (a 304 behind the scenes): nothing to redraw.
        if (request !== this._request || text === this._text) return;
        const data = JSON.parse(text);
        this._show(this._render(data));
        this._text = text;
      } catch {
        if (request.signal.aborted) return;
        // Quiet for the page (no console noise, nothing thrown), plain for the reader.
        this._text = '';
        this._show(this._frame('unavailable', 'Status unavailable', new URL('./', DATA_URL).href));
      } finally {
        if (request === this._request) this._request = null;
      }
    }

    _frame(state, headline, href) {
      const root = el('div', `widget state-${state}`);
      root.dataset.state = state;
      const head = href !== undefined ? link(href, 'headline') : el('div', 'headline');
      const dot = el('span', 'dot');
      dot.setAttribute('aria-hidden', 'true');
      head.append(dot, el('span', 'summary', headline));
      root.append(head);
      return root;
    }

    _render(data) {
      const state = known(data.state);
      // Blind: grey and "unknown", never a state we cannot back; what we last knew is said as such.
      const root = this._frame(state, data.stale ? 'Status unknown' : HEADLINES[state], data.url);
      if (data.stale) {
        root.dataset.stale = 'true';
        const since = typeof data.unknown_since === 'string' ? new Date(data.unknown_since) : null;
        const last = data.last_known_state && HEADLINES[known(data.last_known_state)];
        root.append(
          el(
            'p',
            'stale',
            since && !Number.isNaN(since.getTime())
              ? `The vendor's status feed cannot be read: no data since ${since.toLocaleString()}.${last ? ` Last known: ${last}.` : ''}`
              : "The vendor's status feed has not been read yet: no data.",
          ),
        );
      } else if (data.reads_failing === true && typeof data.last_read_at === 'string') {
        // The words of core/knowledge.ts readsFailingWords, as every face says them.
        const at = new Date(data.last_read_at);
        if (!Number.isNaN(at.getTime())) {
          root.append(el('p', 'stale', `As of ${at.toLocaleString()}, the last good read of the vendor's feed: the reads since failed.`));
        }
      }
      const services = Array.isArray(data.services) ? data.services : [];
      if (services.length > 0) {
        const list = el('ul', 'services');
        for (const service of services) {
          const serviceState = known(service.state);
          const item = el('li', `service state-${serviceState}`);
          item.dataset.state = serviceState;
          const dot = el('span', 'dot');
          dot.setAttribute('aria-hidden', 'true');
          item.append(dot, el('span', 'name', service.name), el('span', 'label', data.stale ? SERVICE_LABELS.unknown : serviceState === 'unknown' ? LABELS.unknown : SERVICE_LABELS[serviceState]));
          list.append(item);
        }
        root.append(list);
      }
      const incidents = Array.isArray(data.incidents) ? data.incidents : [];
      if (incidents.length > 0) {
        const list = el('ul', 'incidents');
        for (const incident of incidents.slice(0, INCIDENTS_SHOWN)) {
          const incidentState = known(incident.state);
          const item = el('li', `incident state-${incidentState}`);
          item.dataset.state = incidentState;
          item.dataset.id = String(incident.id);
          const meta = [LABELS[incidentState], Array.isArray(incident.services) ? incident.services.join(', ') : ''].filter(Boolean).join(' · ');
          item.append(link(incident.url, 'title', incident.title), el('span', 'meta', meta));
          list.append(item);
        }
        if (incidents.length > INCIDENTS_SHOWN) list.append(el('li', 'more', `and ${incidents.length - INCIDENTS_SHOWN} more`));
        root.append(list);
      }
      return root;
    }

    _show(content) {
      this._root.replaceChildren(...(this._style ? [this._style] : []), content);
    }
  }

  customElements.define(TAG, StatuswatchWidget);
})();
