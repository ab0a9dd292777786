/** A signed-in admin's browser without a browser: GETs and form posts to the admin pages with the session cookie, Origin and CSRF token. */
import { expect } from 'vitest';
// Not from app-service.ts: in the workers project that name is swapped for its workerd stand-in,
// and this module must take whichever app the test file started.
import { ADMIN_TOKEN } from './admin-token.ts';

/** What this client needs of a started app, Node's or workerd's. */
type TestApp = { url: string; fetch(url: string, init?: RequestInit): Promise<Response> };

export type AdminPage = { status: number; headers: Headers; html: string };

export type AdminPageClient = {
  cookie: string;
  get(path: string): Promise<AdminPage>;
  /** Posts a form as the page would: with the session's CSRF token unless `fields.csrf` is given, and this site's Origin unless `origin` says otherwise. */
  post(path: string, fields: Record<string, string | string[]>, options?: { origin?: string | null }): Promise<AdminPage>;
};

/** The CSRF token a page's forms carry. */
export const csrfOn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Every value an input or a ticked box of this name has on the page, as the browser would post it. */
export function inputValues(html: string, name: string): string[] {
  const values: string[] = [];
  for (const tag of html.matchAll(/<input\b[^>]*>/g)) {
    const attrs = tag[0];
    if (!attrs.includes(` name="${name}"`)) continue;
    if (/type="checkbox"/.test(attrs) && !/\schecked(?:=""|\s|>|\/)/.test(attrs)) continue;
    values.push(/ value="([^"]*)"/.exec(attrs)?.[1] ?? '');
  }
  return values;
}

/** The text of a part of an admin page, tags removed, from its `<h2 id>` to the next part's heading. */
export function pageSection(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start, id).toBeGreaterThan(-1);
  const end = html.indexOf('<h2 id=', start + 1);
  return html
    .slice(start, end === -1 ? undefined : end)
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
}

export async function signInAdmin(service: TestApp): Promise<AdminPageClient> {
  const send = async (path: string, init: RequestInit = {}): Promise<AdminPage> => {
    const res = await service.fetch(service.url + path, { redirect: 'manual', ...init });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const signIn = await send('/admin/sign-in', { method: 'POST', body: new URLSearchParams({ token: ADMIN_TOKEN }), headers: { origin: service.url } });
  expect(signIn.status).toBe(303);
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = csrfOn((await send('/admin', { headers: { cookie } })).html);
  expect(csrf).not.toBe('');
  return {
    cookie,
    get: (path) => send(path, { headers: { cookie } }),
    post(path, fields, options = {}) {
      const body = new URLSearchParams();
      if (fields.csrf === undefined) body.append('csrf', csrf);
      for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
      const origin = options.origin === undefined ? service.url : options.origin;
      return send(path, { method: 'POST', body, headers: { cookie, ...(origin ? { origin } : {}) } });
    },
  };
}
