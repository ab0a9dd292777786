/** Security headers of the HTML pages: a Content-Security-Policy that runs our own files only, and its companions. */
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

export type PageSecurityOptions = {
  /**
   * Pages with forms send Referrer-Policy: same-origin instead of no-referrer. Under no-referrer a
   * browser sends `Origin: null` with every form post (Fetch standard), which leaves the CSRF check
   * (form-origin.ts) to Sec-Fetch-Site alone, and browsers without it could not post at all.
   * same-origin still sends nothing, token links included, to other sites.
   */
  forms?: boolean;
  /** Cache-Control: no-store instead of renderPage's no-cache: pages that show a subscriber's address or act for an admin. */
  noStore?: boolean;
};

/**
 * Pages load only our own files: our script is a file from 'self' and no inline script may run,
 * so a note body that slipped a <script> or an event handler past the sanitiser still could not.
 * No inline styles either: every look comes from public/*.css. With no per-view nonce, the
 * headers and the page are the same for every visitor, so public pages can be built once and
 * cached (page-cache.ts).
 */
export function pageSecurity(options: PageSecurityOptions = {}): MiddlewareHandler {
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    xFrameOptions: 'DENY',
    referrerPolicy: options.forms ? 'same-origin' : 'no-referrer',
    // HTTPS is the proxy's business: a self-hosted instance on plain HTTP must not pin it.
    strictTransportSecurity: false,
  });
  if (!options.noStore) return headers;
  return (c, next) =>
    headers(c, async () => {
      await next();
      c.res.headers.set('cache-control', 'no-store');
    });
}
