/**
 * What the demo's catchers (mail, webhooks) share on their pages: one look, one escaping, and
 * one set of headers. Their pages show what outsiders sent, so every value is escaped and the
 * policy forbids script, frames and anything loaded from elsewhere. A body that scrolls inside
 * its box is a `<pre tabindex="0">`, so a keyboard can scroll it too.
 */
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../core/email-render.ts';

export { escapeHtml };

// Belt and braces over the escaping; forms (the mail catcher's filter) go to the page itself.
const PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'";

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
article{border-top:1px solid #ccc;padding:.5rem 0}h2{font-size:1.1rem;margin:.25rem 0;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:7rem minmax(0,1fr);margin:0}dt{color:#555}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.75rem;max-height:24rem;overflow:auto}
.verdict{display:inline-block;padding:0 .5rem;border-radius:.25rem;font-weight:600}
.valid{background:#dff3e4;color:#14532d}.invalid{background:#fde2e1;color:#7f1d1d}
.about{margin:.25rem 0;font-weight:600;overflow-wrap:anywhere}pre.body{max-height:12rem;font-size:13px}
form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:1rem 0}label{display:flex;flex-direction:column}
input{font:inherit;padding:.25rem .5rem;min-width:16rem;max-width:100%}button{font:inherit;padding:.25rem .75rem}
table{border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:.25rem .5rem .25rem 0;overflow-wrap:anywhere}`;

/** How often a page that reloads itself does so. */
export const PAGE_RELOAD_SECONDS = 5;

/** Whether a page reloads itself, and the link (the page's other query parameters kept) that turns that on or off. */
export type Reload = { on: boolean; toggleHref: string };

/**
 * A page reloads itself only when its reader asked (`?reload=on`): a page that moves on by itself
 * takes the place a screen reader was reading and the form one was filling in, so it is the
 * reader's choice, and one link away.
 */
export function reloadOf(requestUrl: string): Reload {
  const url = new URL(requestUrl, 'http://page');
  const on = url.searchParams.get('reload') === 'on';
  if (on) url.searchParams.delete('reload');
  else url.searchParams.set('reload', 'on');
  const query = url.searchParams.toString();
  return { on, toggleHref: `${url.pathname}${query === '' ? '' : `?${query}`}` };
}

/** The link that turns reloading on or off, and what it does now. */
export function reloadLink(reload: Reload, seconds = PAGE_RELOAD_SECONDS): string {
  return reload.on
    ? `This page reloads every ${seconds} s: <a href="${escapeHtml(reload.toggleHref)}">stop reloading</a>.`
    : `<a href="${escapeHtml(reload.toggleHref)}">Reload this page every ${seconds} s</a> to watch what arrives.`;
}

export function renderCatcherPage(page: { title: string; heading: string; intro: string; body: string; reload: Reload }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${page.reload.on ? `<meta http-equiv="refresh" content="${PAGE_RELOAD_SECONDS}">` : ''}
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head><body>
<main>
<h1>${escapeHtml(page.heading)}</h1>
<p class="reload">${reloadLink(page.reload)}</p>
${page.intro}
${page.body}
</main>
</body></html>
`;
}

export function sendCatcherPage(res: ServerResponse, html: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_POLICY, 'cache-control': 'no-store' });
  res.end(html);
}

export function sendNotFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
}

/** "1.2 MB", "340 kB": a byte bound as a reader takes it in. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1).replace(/\.0$/, '')} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 1_000)} kB`;
  return `${bytes} bytes`;
}
