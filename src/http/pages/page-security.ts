/** Security headers of the HTML pages: a nonce-based Content-Security-Policy and its companions. */
import type { Context, MiddlewareHandler } from 'hono';
import { NONCE, secureHeaders } from 'hono/secure-headers';

/**
 * Pages load only our own files; the one thing a nonce allows is our own script tag, so a note
 * body that slipped a <script> past the sanitiser still could not run. No inline styles either:
 * every look comes from public/*.css.
 */
export function pageSecurity(): MiddlewareHandler {
  return secureHeaders({
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
    referrerPolicy: 'no-referrer',
    // HTTPS is the proxy's business: a self-hosted instance on plain HTTP must not pin it.
    strictTransportSecurity: false,
  });
}

/** The nonce pageSecurity made for this request (empty when the middleware is missing: scripts then stay blocked). */
export function pageNonce(c: Context): string {
  return (c.get('secureHeadersNonce' as never) as string | undefined) ?? '';
}
