/** The chat simulators' pages: what outsiders sent, every value escaped, no script, reloaded every 5 s when the reader asks. */
import type { Context } from 'hono';
import { reloadOf, renderCatcherPage } from '../catcher-page.ts';

const PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'";
const EXTRA_STYLE = '<style>.embed{padding:.25rem .75rem;margin:.25rem 0;background:#f6f6f6}.embed h2{margin:.25rem 0;font-size:1rem}</style>';

/** `items`: HTML already escaped by the caller. */
export function renderChatPage(c: Context, page: { title: string; intro: string; items: string[] }): Response {
  const html = renderCatcherPage({
    title: page.title,
    heading: page.title,
    intro: `${EXTRA_STYLE}<p>${page.intro}</p>`,
    body: page.items.join('\n'),
    reload: reloadOf(c.req.url),
  });
  return c.html(html, 200, { 'content-security-policy': PAGE_POLICY, 'cache-control': 'no-store' });
}
