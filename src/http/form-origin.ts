/** Refuses form posts made by other sites (CSRF): the browser must say the form came from this site. */
import type { Context, MiddlewareHandler } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { siteOrigin } from './site-origin.ts';

/**
 * hono/csrf passes a form post whose Sec-Fetch-Site is same-origin, or whose Origin is this site.
 * "This site" is site-origin.ts's: the origin the request reached and, behind a proxy, PUBLIC_URL's.
 * A refusal renders `refuse` (a page, not the API's JSON), and downstream errors are not mistaken
 * for refusals.
 */
export function sameOriginForms(publicUrl: string | undefined, refuse: (c: Context) => Response | Promise<Response>): MiddlewareHandler {
  const site = siteOrigin(publicUrl);
  const check = csrf({ origin: site.isOwnOrigin });
  return async (c, next) => {
    try {
      await check(c, async () => {});
    } catch (error) {
      if (error instanceof HTTPException && error.status === 403) return refuse(c);
      throw error;
    }
    await next();
  };
}
