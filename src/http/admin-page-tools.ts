/** What every admin page module shares: the request's session and CSRF token, the page frames, the page size. */
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AdminSession } from './admin-session.ts';

export type AdminEnv = { Variables: { session: AdminSession; csrf: string } };

/** The admin pages' lists: a page a person reads. */
export const ADMIN_PAGE_SIZE = 50;

export type AdminPageTools = {
  /** A page in the admin frame (navigation, sign-out, a notice above the body). */
  adminPage: (c: Context<AdminEnv>, title: string, body: Child, notice?: string | null, status?: ContentfulStatusCode) => Response | Promise<Response>;
  /** A page that says what went wrong, with a link back. */
  problem: (c: Context, status: ContentfulStatusCode, title: string, message: string, back?: string) => Response | Promise<Response>;
  /** A use case's refusal (an ApiError: 404 no such subscription, 409 not confirmed) as a page; anything else is thrown on. */
  refused: (c: Context, error: unknown, back: string) => Response | Promise<Response>;
};

/** The value when it is one of `allowed`: a filter from a link or a form, never refused, only ignored. */
export function oneOf<T extends string>(raw: string | undefined, allowed: readonly T[]): T | undefined {
  return (allowed as readonly string[]).includes(raw ?? '') ? (raw as T) : undefined;
}
