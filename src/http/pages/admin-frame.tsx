/** What every admin page shares: the admin navigation with sign-out, the CSRF field, and result notices. */
import type { Child } from 'hono/jsx';

/**
 * The admin's sections: the navigation of every admin page and the overview's list of everything
 * else are both made from this one list, so a new section is in both.
 */
const ADMIN_NAV: readonly { href: string; label: string; summary: Child }[] = [
  {
    href: '/admin/subscriptions',
    label: 'Subscriptions',
    summary: (
      <>
        who gets what, their health; <a href="/admin/new-subscription">create one</a>, change, pause, resume, rotate a webhook's secret, send a test, delete.
      </>
    ),
  },
  { href: '/admin/deliveries', label: 'Deliveries', summary: 'the outbox and every attempt; replay one, or all since a time.' },
  { href: '/admin/polls', label: 'Poll runs', summary: "each poll of the vendor's feed, what came back, and payloads that were refused." },
  { href: '/admin/app', label: 'Workspace app', summary: 'install the app in a workspace, see how its installations stand, uninstall.' },
  {
    href: '/admin/directory',
    label: 'Directory',
    summary: 'whether the SCIM directory answers, and the group subscriptions with their members, audit lists and syncs.',
  },
  { href: '/admin/sources', label: 'Sources', summary: 'the status pages watched beside the main feed; add one by its address, remove one.' },
];

/** Every admin form carries it; the server refuses a post without the session's token. */
export function CsrfField(props: { token: string }) {
  return <input type="hidden" name="csrf" value={props.token} />;
}

/** A button that posts: admin actions change things, so they are never links. */
export function PostButton(props: { action: string; csrf: string; label: string; danger?: boolean; children?: Child }) {
  return (
    <form method="post" action={props.action} class="inline-form">
      <CsrfField token={props.csrf} />
      {props.children}
      <button type="submit" class={props.danger ? 'button-danger' : 'button-secondary'}>
        {props.label}
      </button>
    </form>
  );
}

export function AdminFrame(props: { path: string; csrf: string; title: string; notice?: string | null; children?: Child }) {
  return (
    <>
      <div class="admin-bar">
        <nav aria-label="Admin">
          <ul>
            <li>
              <a href="/admin" aria-current={props.path === '/admin' ? 'page' : undefined}>
                Admin
              </a>
            </li>
            {ADMIN_NAV.map((item) => (
              <li>
                <a href={item.href} aria-current={props.path === item.href ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <PostButton action="/admin/sign-out" csrf={props.csrf} label="Sign out" />
      </div>
      <h1>{props.title}</h1>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      {props.children}
    </>
  );
}

export function AdminHome() {
  return (
    <ul class="admin-links">
      {ADMIN_NAV.map((item) => (
        <li>
          <a href={item.href}>{item.label}</a>: {item.summary}
        </li>
      ))}
    </ul>
  );
}

/** `next` is a path under /admin only, checked by the route: the form cannot send anyone elsewhere. */
export function SignInPage(props: { next: string; error?: string }) {
  return (
    <section aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Admin sign-in</h1>
      {props.error && (
        <div class="error-summary" role="alert">
          <p>{props.error}</p>
        </div>
      )}
      <form method="post" action="/admin/sign-in" class="form-stack" novalidate>
        <input type="hidden" name="next" value={props.next} />
        <div class="field">
          <label for="admin-token">Admin token</label>
          <input
            type="password"
            id="admin-token"
            name="token"
            required
            autocomplete="current-password"
            aria-describedby="admin-token-hint"
            aria-invalid={props.error ? true : undefined}
          />
          <p id="admin-token-hint" class="hint">
            The ADMIN_TOKEN this server was started with. You stay signed in for 12 hours.
          </p>
        </div>
        <div class="actions">
          <button type="submit">Sign in</button>
        </div>
      </form>
    </section>
  );
}
