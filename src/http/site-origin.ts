/**
 * Which Host and Origin are this site, one rule for the forms (CSRF) and /mcp (DNS rebinding).
 * The site is reached at the origin a request names and, behind a proxy, at PUBLIC_URL: the
 * browser names the public origin while Node sees its own.
 */
import type { Context } from 'hono';
import { isLoopbackHostname } from '../core/ip-address.ts';

export type SiteOrigin = {
  /** Whether `origin` (an Origin header) is this site: the origin the request reached, or PUBLIC_URL's. */
  isOwnOrigin(origin: string, c: Context): boolean;
  /**
   * Whether the request's Host is a name this service is known by: a loopback name, or PUBLIC_URL's
   * host. Unset, PUBLIC_URL defaults to http://localhost:$PORT, so only loopback names are.
   */
  isServedHost(c: Context): boolean;
};

export function siteOrigin(publicUrl: string | undefined): SiteOrigin {
  const publicOrigin = publicUrl ? new URL(publicUrl) : null;
  return {
    isOwnOrigin: (origin, c) => origin === new URL(c.req.url).origin || origin === publicOrigin?.origin,
    isServedHost(c) {
      // The request URL's host is the Host header (on Node as in a Worker); ports do not name a site.
      const { hostname } = new URL(c.req.url);
      return isLoopbackHostname(hostname) || hostname === publicOrigin?.hostname;
    },
  };
}
