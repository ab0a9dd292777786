/** Security headers of the HTML pages: a nonce-based Content-Security-Policy and its companions. */
import type { Context, MiddlewareHandler } from 'hono';
import { NONCE, secureHeaders } from 'hono/secure-headers';

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
 * Pages load only our own files; the one thing a nonce allows is our own script tag, so a note
 * body that slipped a <script> past the sanitiser still could not run. No inline styles either:
 * every look comes from public/*.css.
 */
export function pageSecurity(options: PageSecurityOptions = {}): MiddlewareHandler {
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", NONCE],
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

/** The nonce pageSecurity made for this request (empty when the middleware is missing: scripts then stay blocked). */
export function pageNonce(c: Context): string {
  return (c.get('secureHeadersNonce' as never) as string | undefined) ?? '';
}
