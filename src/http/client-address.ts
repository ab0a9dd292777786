/**
 * The address a request came from, for rate limits. Behind a reverse proxy every request comes
 * from the proxy, so with TRUST_PROXY the last X-Forwarded-For entry counts: the one our own proxy
 * appended (the entries before it are whatever the client chose to send).
 */
import type { Context } from 'hono';

export function clientAddressFrom(socketAddress: (c: Context) => string | undefined, trustProxy: boolean): (c: Context) => string {
  return (c) => {
    if (trustProxy) {
      const forwarded = c.req
        .header('x-forwarded-for')
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .at(-1);
      if (forwarded) return forwarded;
    }
    return socketAddress(c) ?? 'unknown';
  };
}
