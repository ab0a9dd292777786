/** The frame of every dashboard page: the HTML document, header and navigation, main, footer. */
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { assetUrl, type StaticAssets } from '../routes/static-assets.ts';

export type LayoutProps = {
  title: string;
  /** The request path: marks the current section in the navigation. */
  path: string;
  assets: StaticAssets;
  children?: Child;
};

const NAV: { href: string; label: string }[] = [
  { href: '/', label: 'Status' },
  { href: '/incidents', label: 'Incidents' },
  { href: '/reliability', label: 'Reliability' },
  { href: '/subscribe', label: 'Subscribe' },
];

function isCurrent(href: string, path: string): boolean {
  return href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`);
}

export function Layout(props: LayoutProps) {
  return (
    <>
      {raw('<!doctype html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="color-scheme" content="light dark" />
          {/* Fingerprinted, so fetched once and then cached for a year, not once per page. */}
          <link rel="icon" type="image/svg+xml" href={assetUrl(props.assets, '/favicon.svg')} />
          <title>{`${props.title} · statuswatch`}</title>
          <link rel="stylesheet" href={assetUrl(props.assets, '/style.css')} />
          <link rel="stylesheet" href={assetUrl(props.assets, '/charts.css')} />
          <script src={assetUrl(props.assets, '/app.js')} defer></script>
        </head>
        <body>
          <a class="skip-link" href="#main">
            Skip to content
          </a>
          <header class="site-header">
            <a class="site-name" href="/">
              statuswatch
            </a>
            <nav aria-label="Main">
              <ul>
                {NAV.map((item) => (
                  <li>
                    <a href={item.href} aria-current={isCurrent(item.href, props.path) ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          </header>
          <main id="main" tabindex={-1}>
            {props.children}
          </main>
          <footer class="site-footer">
            <p>
              An independent archive of the vendor's public status feed. Times are shown in your time zone when scripts run, else in UTC.{' '}
              <a href="/feed.atom">Atom feed</a> · <a href="/api/incidents">JSON API</a> · <a href="/api/reference">API reference</a>
            </p>
          </footer>
        </body>
      </html>
    </>
  );
}

/**
 * Answers with a rendered page. The security headers come from pageSecurity() on the route;
 * caches revalidate before each use (public pages get their ETag from page-cache.ts).
 */
export function renderPage(c: Context, page: HtmlEscapedString | Promise<HtmlEscapedString>, status: ContentfulStatusCode = 200) {
  c.header('cache-control', 'no-cache');
  return c.html(page, status);
}

export type PageResponder = (c: Context, title: string, body: Child, status?: ContentfulStatusCode) => Response | Promise<Response>;

/** `page(c, title, body, status)`: the body in the Layout, answered by renderPage. */
export function pageResponder(assets: StaticAssets, titleSuffix = ''): PageResponder {
  return (c, title, body, status = 200) =>
    renderPage(
      c,
      <Layout title={title + titleSuffix} path={c.req.path} assets={assets}>
        {body}
      </Layout>,
      status,
    );
}
