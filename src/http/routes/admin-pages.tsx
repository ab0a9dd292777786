/**
 * The admin pages under `/admin`: sign-in with ADMIN_TOKEN (a session cookie), subscriptions,
 * deliveries with replay, and poll runs. The same powers as the admin JSON API, for a browser.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { randomSecret } from '../../core/cursor.ts';
import { ApiError } from '../../core/errors.ts';
import type { TestSendResult } from '../../app/subscriptions.ts';
import { feedState } from '../../core/feed-state.ts';
import { webhookMessageId } from '../../core/fanout.ts';
import { utcDate } from '../../core/service-days.ts';
import type { Delivery, StoredSubscription } from '../../core/ports.ts';
import { CHANNELS, type Channel } from '../../core/subscription.ts';
import { ADMIN_DEVICE_MS, ADMIN_SESSION_MS, adminCookies, createAdminSessions, type AdminSession, type AdminSessions } from '../admin-session.ts';
import { createAdminTokenCheck } from '../admin-token-check.ts';
import type { AppDeps } from '../deps.ts';
import { formValue, formValues, readForm, type FormBody } from '../form-body.ts';
import { sameOriginForms } from '../form-origin.ts';
import { registerAdminAppPages } from './admin-app-pages.tsx';
import { registerAdminDirectoryPages } from './admin-directory-pages.tsx';
import { AdminFrame, SignInPage } from '../pages/admin-frame.tsx';
import { type FailingSubscription, type Known, OverviewPage } from '../pages/admin-overview-page.tsx';
import {
  DELIVERY_ATTEMPTS_SHOWN,
  DELIVERY_EVENTS_SHOWN,
  DELIVERY_STATES,
  DeliveriesPage,
  DeliveryPage,
  type DeliveryView,
} from '../pages/admin-deliveries-page.tsx';
import { PollPage, PollsPage } from '../pages/admin-polls-page.tsx';
import { SUBSCRIPTION_STATUSES, SubscriptionsPage, TestResultsPage } from '../pages/admin-subscriptions-page.tsx';
import {
  CreateSubscriptionPage,
  NEW_SUBSCRIPTION_FIELDS,
  SecretOncePage,
  sharedFieldsOf,
  sharedRequestBody,
  SubscriptionPage,
} from '../pages/admin-subscription-form.tsx';
import { ErrorMessage } from '../pages/error-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';
import { first, formKind, SUBSCRIPTION_FORM_KINDS, type FormFields, type SubscriptionFormKind } from '../pages/subscription-kinds.tsx';
import { replayDeliveriesSince, replayDelivery } from '../../app/delivery-replay.ts';
import { deliveryPage, subscriptionPage } from '../../app/subscription-lists.ts';
import { subscriptionRequests } from '../../app/subscription-requests.ts';

const PAGE_SIZE = 50;
/** The overview's lists are short by design: each links to the whole, paginated list. */
const OVERVIEW_POLLS = 5;
const OVERVIEW_FAILING = 10;
/** Where the overview looks for a failing subscription's last error: its newest deliveries. */
const RECENT_DELIVERIES_FOR_ERROR = 5;
const FORM_MAX_BYTES = 16 * 1024;

type AdminEnv = { Variables: { session: AdminSession; csrf: string } };

/** What a redirect after an action says on the next page; a fixed list, so no text comes from the URL. */
const NOTICES: Record<string, string> = {
  paused: 'Subscription paused: nothing is sent to it until it is resumed.',
  resumed: 'Subscription resumed: what waited while it was paused goes out now.',
  deleted: 'Subscription deleted, with its deliveries not yet sent.',
  saved: 'Changes saved.',
  replayed: 'Delivery queued to be sent again, with the same message id.',
};

export function adminPageRoutes(deps: AppDeps) {
  const { store, subscriptions, clock } = deps;
  const app = new Hono<AdminEnv>();
  let sessionsReady: Promise<AdminSessions> | null = null;
  // Its own key, made on first use and kept with the archive: sessions survive a restart (but not
  // a new ADMIN_TOKEN). Only called once the middleware below has checked that a token is set.
  // A failed first use (the database locked or full while the key is written) is forgotten, so
  // the next request tries again instead of every sign-in failing until a restart.
  const sessions = () => {
    if (sessionsReady) return sessionsReady;
    const ready = store.secret('admin-session', () => randomSecret()).then((secret) => createAdminSessions(secret, deps.adminToken!, store));
    sessionsReady = ready;
    ready.catch(() => {
      if (sessionsReady === ready) sessionsReady = null;
    });
    return ready;
  };
  const checkToken = deps.adminToken ? createAdminTokenCheck({ ...deps, adminToken: deps.adminToken }) : null;
  const cookie = adminCookies(deps.publicUrl);
  // Path=/admin keeps the cookies off every other request.
  const cookieOptions = { httpOnly: true, sameSite: 'Strict' as const, secure: cookie.secure, path: '/admin' };

  const page = pageResponder(deps.assets, ' · admin');
  const adminPage = (c: Context<AdminEnv>, title: string, body: Child, notice: string | null = null, status: ContentfulStatusCode = 200) =>
    page(
      c,
      title,
      <AdminFrame path={c.req.path} csrf={c.get('csrf')} title={title} notice={notice}>
        {body}
      </AdminFrame>,
      status,
    );
  const problem = (c: Context, status: ContentfulStatusCode, title: string, message: string, back = '/admin') =>
    page(
      c,
      title,
      <ErrorMessage title={title} message={message}>
        <p>
          <a href={back}>Go back</a>
        </p>
      </ErrorMessage>,
      status,
    );
  /** The service's refusals (404 no such subscription, 409 not confirmed) as a page. */
  const refused = (c: Context, error: unknown, back: string) => {
    if (!(error instanceof ApiError)) throw error;
    return problem(c, error.status as ContentfulStatusCode, error.status === 404 ? 'Not found' : 'Not done', error.detail ?? error.code, back);
  };

  // no-store: admin pages show addresses and delivery logs that no cache should keep.
  app.use('/admin/*', pageSecurity({ forms: true, noStore: true }));
  app.use('/admin/*', async (c, next) => {
    if (!deps.adminToken) return problem(c, 403, 'Admin area disabled', 'Set ADMIN_TOKEN to enable the admin pages.', '/');
    await next();
  });
  app.use('/admin/*', bodyLimit({ maxSize: FORM_MAX_BYTES, onError: (c) => problem(c, 413, 'Form too large', 'That was more than an admin form holds.') }));
  app.use(
    '/admin/*',
    sameOriginForms(deps.publicUrl, (c) => problem(c, 403, 'Form refused', 'This form was sent from another site, so it was not accepted.')),
  );
  app.use('/admin/*', requireSession());

  app.get('/admin/sign-in', async (c) => {
    if (await currentSession(c)) return c.redirect('/admin', 303);
    return page(c, 'Sign in', <SignInPage next={safeNext(c.req.query('next'))} />);
  });

  app.post('/admin/sign-in', async (c) => {
    const form = await readForm(c);
    const next = safeNext(formValue(form.next));
    const token = formValue(form.token);
    // Never a lockout: the throttle asks for a wait of seconds, then the right token gets in.
    const all = await sessions();
    const deviceId = await all.readDevice(getCookie(c, cookie.device));
    const result = await checkToken!(c, token, deviceId);
    if (result.outcome === 'throttled') {
      c.header('retry-after', String(result.retryAfterSeconds));
      const error = `Too many wrong tokens. Wait ${result.retryAfterSeconds} second${result.retryAfterSeconds === 1 ? '' : 's'} and try again.`;
      return page(c, 'Sign in', <SignInPage next={next} error={error} />, 429);
    }
    if (result.outcome === 'wrong') {
      return page(c, 'Sign in', <SignInPage next={next} error="That is not the admin token. Check it and try again." />, 401);
    }
    const issued = await all.issue(clock.now());
    setCookie(c, cookie.session, issued.cookie, { ...cookieOptions, maxAge: ADMIN_SESSION_MS / 1000 });
    if (!deviceId) setCookie(c, cookie.device, await all.issueDevice(), { ...cookieOptions, maxAge: ADMIN_DEVICE_MS / 1000 });
    return c.redirect(next, 303);
  });

  // Ends the session on the server too: the old cookie opens nothing afterwards.
  app.post('/admin/sign-out', async (c) => {
    await (await sessions()).end(getCookie(c, cookie.session));
    deleteCookie(c, cookie.session, cookieOptions);
    return c.redirect('/admin/sign-in', 303);
  });

  app.get('/admin', async (c) => {
    const now = clock.now();
    // Each part on its own: one that cannot be read says "unknown" while the others still show.
    const [feed, polls, outbox, failing] = await Promise.all([
      known(store.feedHealth().then((health) => feedState(health, now))),
      known(store.listPollRuns(null, OVERVIEW_POLLS)),
      known(store.deliveryCounts(now)),
      known(failingSubscriptions()),
    ]);
    return adminPage(c, 'Admin', <OverviewPage data={{ now, feed, polls, outbox, failing }} />);
  });

  /** The first failing subscriptions, each with the error of its latest failed delivery. */
  async function failingSubscriptions(): Promise<{ list: FailingSubscription[]; more: boolean }> {
    const rows = await store.listSubscriptions({ failing: true }, null, OVERVIEW_FAILING + 1);
    const list = await Promise.all(
      rows.slice(0, OVERVIEW_FAILING).map(async (subscription) => {
        const recent = await store.listDeliveries({ subscriptionId: subscription.id }, null, RECENT_DELIVERIES_FOR_ERROR);
        return { subscription, lastError: recent.find((d) => d.lastError !== null)?.lastError ?? null };
      }),
    );
    return { list, more: rows.length > OVERVIEW_FAILING };
  }

  app.get('/admin/subscriptions', async (c) => {
    const status = oneOf(c.req.query('status'), SUBSCRIPTION_STATUSES);
    const channel = oneOf(c.req.query('channel'), CHANNELS as readonly Channel[]);
    const failing = c.req.query('health') === 'failing';
    const cursor = c.req.query('cursor');
    let list: StoredSubscription[];
    let nextCursor: string;
    try {
      ({ page: list, next: nextCursor } = await subscriptionPage(
        deps,
        { status, channel, failing },
        { list: 'admin-subscriptions', cursor, limit: PAGE_SIZE },
      ));
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_cursor') throw error;
      return problem(c, 400, 'Page link not valid', 'The link to this page of subscriptions is not valid; start from the first page.', '/admin/subscriptions');
    }
    const params = new URLSearchParams();
    if (status) params.set('status', status);
    if (channel) params.set('channel', channel);
    if (failing) params.set('health', 'failing');
    const data = {
      subscriptions: list,
      status: status ?? '',
      channel: channel ?? '',
      health: failing ? 'failing' : '',
      params,
      nextCursor,
      onFirstPage: !cursor,
      csrf: c.get('csrf'),
    };
    return adminPage(c, 'Subscriptions', <SubscriptionsPage data={data} />, NOTICES[c.req.query('done') ?? ''] ?? null);
  });

  // Forms build the API's request body and go through the API's own checks (subscription-requests.ts).
  const requests = subscriptionRequests(deps);
  /** A refusal the admin can fix in the form (400, 409, 404 of a kind's reference): shown above it, values kept. */
  const formError = (error: unknown): { status: ContentfulStatusCode; message: string } => {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    return { status: error.status as ContentfulStatusCode, message: sentence(error.detail ?? error.code) };
  };
  const createForm = async (
    c: Context<AdminEnv>,
    kind: SubscriptionFormKind,
    fields: FormFields,
    error: { status: ContentfulStatusCode; message: string } | null,
  ) => {
    const kindFields = await kind.fields({ fields, editing: null, deps });
    const data = { kind, kindFields, fields, error: error?.message ?? null, csrf: c.get('csrf') };
    return adminPage(c, 'New subscription', <CreateSubscriptionPage data={data} />, null, error?.status ?? 200);
  };
  const subscriptionForm = async (
    c: Context<AdminEnv>,
    subscription: StoredSubscription,
    fields: FormFields,
    error: { status: ContentfulStatusCode; message: string } | null,
  ) => {
    const kind = formKind(subscription.channel);
    const kindFields = kind ? await kind.fields({ fields, editing: subscription, deps }) : null;
    const data = { subscription, kind, kindFields, fields, error: error?.message ?? null, csrf: c.get('csrf'), now: clock.now() };
    const notice = error ? null : (NOTICES[c.req.query('done') ?? ''] ?? null);
    return adminPage(c, 'Subscription', <SubscriptionPage data={data} />, notice, error?.status ?? 200);
  };

  app.get('/admin/new-subscription', (c) => createForm(c, formKind(c.req.query('channel')) ?? SUBSCRIPTION_FORM_KINDS[0]!, NEW_SUBSCRIPTION_FIELDS, null));

  app.post('/admin/new-subscription', async (c) => {
    const fields = postedFields(await readForm(c));
    const kind = formKind(first(fields, 'channel'));
    if (!kind) {
      const kinds = SUBSCRIPTION_FORM_KINDS.map((k) => k.channel).join(', ');
      return problem(c, 400, 'Not done', `Choose a kind of subscription (${kinds}).`, '/admin/new-subscription');
    }
    try {
      const { subscription, secret } = await requests.create({ channel: kind.channel, ...kind.requestBody(fields, null), ...sharedRequestBody(fields) });
      return adminPage(c, 'Subscription created', <SecretOncePage subscription={subscription} secret={secret} rotated={false} />, null, 201);
    } catch (error) {
      return createForm(c, kind, fields, formError(error));
    }
  });

  app.get('/admin/subscriptions/:id', async (c) => {
    const subscription = await store.getSubscription(c.req.param('id'));
    if (!subscription) return problem(c, 404, 'Not found', 'No subscription with that id.', '/admin/subscriptions');
    const kind = formKind(subscription.channel);
    return subscriptionForm(c, subscription, { ...kind?.fieldsOf(subscription), ...sharedFieldsOf(subscription) }, null);
  });

  app.post('/admin/subscriptions/:id', async (c) => {
    const id = c.req.param('id');
    const current = await store.getSubscription(id);
    if (!current) return problem(c, 404, 'Not found', 'No subscription with that id.', '/admin/subscriptions');
    const fields = postedFields(await readForm(c));
    try {
      // A kind with no form (or whose target cannot change) keeps its target: only filters and zone are sent.
      await requests.update(id, { ...formKind(current.channel)?.requestBody(fields, current), ...sharedRequestBody(fields) });
    } catch (error) {
      return subscriptionForm(c, current, fields, formError(error));
    }
    return c.redirect(`/admin/subscriptions/${encodeURIComponent(id)}?done=saved`, 303);
  });

  app.post('/admin/subscriptions/:id/rotate-secret', async (c) => {
    const id = c.req.param('id');
    try {
      const { subscription, secret } = await subscriptions.rotateSecret(id);
      return adminPage(c, 'New signing secret', <SecretOncePage subscription={subscription} secret={secret} rotated />);
    } catch (error) {
      return refused(c, error, `/admin/subscriptions/${encodeURIComponent(id)}`);
    }
  });

  const subscriptionAction = (action: 'pause' | 'resume' | 'delete', done: string) =>
    app.post(`/admin/subscriptions/:id/${action}`, async (c) => {
      const id = c.req.param('id');
      try {
        if (action === 'pause') await subscriptions.pause(id);
        else if (action === 'resume') await subscriptions.resume(id);
        else await subscriptions.remove(id);
      } catch (error) {
        return refused(c, error, '/admin/subscriptions');
      }
      // Back where the button was: the subscription's own page (unless it is gone), or the list.
      const fromPage = action !== 'delete' && formValue((await readForm(c)).from) === 'page';
      return c.redirect(fromPage ? `/admin/subscriptions/${encodeURIComponent(id)}?done=${done}` : `/admin/subscriptions?done=${done}`, 303);
    });
  subscriptionAction('pause', 'paused');
  subscriptionAction('resume', 'resumed');
  subscriptionAction('delete', 'deleted');

  app.post('/admin/subscriptions/:id/test', async (c) => {
    const id = c.req.param('id');
    const subscription = await store.getSubscription(id);
    if (!subscription) return problem(c, 404, 'Not found', 'No subscription with that id.', '/admin/subscriptions');
    let results: TestSendResult[];
    try {
      results = await subscriptions.sendTest(id);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return problem(c, error.status, 'Test not sent', `${error.detail ?? error.code}.`, `/admin/subscriptions/${encodeURIComponent(id)}`);
    }
    return adminPage(c, 'Test sent', <TestResultsPage subscription={subscription} results={results} />);
  });

  app.get('/admin/deliveries', async (c) => {
    const state = oneOf(c.req.query('state'), DELIVERY_STATES);
    const subscription = c.req.query('subscription')?.trim() ?? '';
    const cursor = c.req.query('cursor');
    let list: Delivery[];
    let nextCursor: string;
    try {
      ({ page: list, next: nextCursor } = await deliveryPage(
        deps,
        { state, subscriptionId: subscription || undefined },
        { list: 'admin-deliveries', cursor, limit: PAGE_SIZE },
      ));
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_cursor') throw error;
      return problem(c, 400, 'Page link not valid', 'The link to this page of deliveries is not valid; start from the first page.', '/admin/deliveries');
    }
    // What each carries and where it went: two reads for the page, one event per delivery.
    const [subscribed, events] = await Promise.all([
      store.subscriptionsByIds([...new Set(list.map((d) => d.subscriptionId))]),
      store.eventsByIds([...new Set(list.flatMap((d) => d.eventIds.slice(0, 1)))]),
    ]);
    const subscriptionById = new Map(subscribed.map((s) => [s.id, s]));
    const eventById = new Map(events.map((e) => [e.id, e]));
    const views: DeliveryView[] = list.map((delivery) => ({
      delivery,
      subscription: subscriptionById.get(delivery.subscriptionId) ?? null,
      event: eventById.get(delivery.eventIds[0] ?? '') ?? null,
      moreEvents: Math.max(0, delivery.eventIds.length - 1),
    }));
    const params = new URLSearchParams();
    if (state) params.set('state', state);
    if (subscription) params.set('subscription', subscription);
    const replayed = Number(c.req.query('replayed'));
    const notice =
      Number.isSafeInteger(replayed) && c.req.query('replayed') !== undefined
        ? `${replayed} ${replayed === 1 ? 'delivery' : 'deliveries'} queued to be sent again.`
        : null;
    const data = {
      deliveries: views,
      state: state ?? '',
      subscription,
      params,
      nextCursor,
      onFirstPage: !cursor,
      csrf: c.get('csrf'),
      today: utcDate(clock.now()),
    };
    return adminPage(c, 'Deliveries', <DeliveriesPage data={data} />, notice);
  });

  app.post('/admin/delivery-replays', async (c) => {
    const form = await readForm(c);
    const subscriptionId = formValue(form.subscription).trim() || undefined;
    const state = oneOf(formValue(form.state), DELIVERY_STATES);
    let replayed: number;
    try {
      replayed = await replayDeliveriesSince(deps, { since: formValue(form.since), subscriptionId, state });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return problem(c, 400, 'Replay not done', error.detail ?? 'The replay could not be read.', '/admin/deliveries');
    }
    return c.redirect(`/admin/deliveries?replayed=${replayed}`, 303);
  });

  app.get('/admin/deliveries/:id', async (c) => {
    const id = deliveryId(c.req.param('id'));
    const found = id === null ? null : await store.getDelivery(id, DELIVERY_ATTEMPTS_SHOWN);
    if (!found) return problem(c, 404, 'Not found', 'No delivery with that id.', '/admin/deliveries');
    const { delivery, attempts } = found;
    const [webhookId, [subscription], events] = await Promise.all([
      delivery.channel === 'webhook' ? webhookMessageId(delivery.key) : null,
      store.subscriptionsByIds([delivery.subscriptionId]),
      store.eventsByIds(delivery.eventIds.slice(0, DELIVERY_EVENTS_SHOWN)),
    ]);
    return adminPage(
      c,
      `Delivery #${delivery.id}`,
      <DeliveryPage delivery={delivery} attempts={attempts} webhookId={webhookId} csrf={c.get('csrf')} subscription={subscription ?? null} events={events} />,
      NOTICES[c.req.query('done') ?? ''] ?? null,
    );
  });

  app.post('/admin/deliveries/:id/replay', async (c) => {
    const id = deliveryId(c.req.param('id'));
    if (id === null || !(await replayDelivery(deps, id))) return problem(c, 404, 'Not found', 'No delivery with that id.', '/admin/deliveries');
    return c.redirect(`/admin/deliveries/${id}?done=replayed`, 303);
  });

  app.get('/admin/polls', async (c) => {
    const before = Number(c.req.query('before'));
    const runs = await store.listPollRuns(Number.isFinite(before) && before > 0 ? before : null, PAGE_SIZE);
    const last = runs.at(-1);
    const olderHref = runs.length === PAGE_SIZE && last ? `/admin/polls?before=${last.startedAt}` : null;
    return adminPage(c, 'Poll runs', <PollsPage runs={runs} olderHref={olderHref} onFirstPage={c.req.query('before') === undefined} />);
  });

  app.get('/admin/polls/:id', async (c) => {
    const found = await store.getPollRun(c.req.param('id'));
    if (!found) return problem(c, 404, 'Not found', 'No poll run with that id.', '/admin/polls');
    return adminPage(c, 'Poll run', <PollPage run={found.run} rejected={found.rejected} />);
  });

  registerAdminAppPages(app, deps, { adminPage, problem });
  registerAdminDirectoryPages(app, deps, { adminPage, problem });

  app.all('/admin/*', (c) => problem(c, 404, 'Not found', `There is no admin page at ${c.req.path.slice(0, 100)}.`));

  return app;

  async function currentSession(c: Context): Promise<AdminSession | null> {
    return (await sessions()).read(getCookie(c, cookie.session), clock.now());
  }

  /**
   * Every page but sign-in needs a session; every post also needs the session's CSRF token (the
   * Origin check above is the first line; the token holds where a browser sends no Origin).
   */
  function requireSession(): MiddlewareHandler<AdminEnv> {
    return async (c, next) => {
      if (c.req.path === '/admin/sign-in') return next();
      const session = await currentSession(c);
      if (!session) {
        if (c.req.method === 'GET' || c.req.method === 'HEAD') {
          const url = new URL(c.req.url);
          return c.redirect(`/admin/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
        }
        return problem(c, 401, 'Signed out', 'Your admin session has ended. Sign in again, then repeat what you were doing.', '/admin/sign-in');
      }
      const all = await sessions();
      c.set('session', session);
      c.set('csrf', await all.csrfToken(session));
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !(await all.checkCsrf(session, formValue((await readForm(c)).csrf)))) {
        return problem(c, 403, 'Form expired', 'This form is from an earlier session or another page. Open the page again and repeat.');
      }
      await next();
    };
  }
}

/** Where to go after signing in: an admin path, never another site (`//evil.example` is one). */
function safeNext(raw: string | undefined): string {
  if (!raw || !/^\/admin(?:[/?]|$)/.test(raw) || raw.startsWith('//') || raw.includes('\\')) return '/admin';
  return raw;
}

/** Every text field posted, by name; the CSRF token is not a value to show again. */
function postedFields(form: FormBody): FormFields {
  const fields: FormFields = {};
  for (const [name, value] of Object.entries(form)) if (name !== 'csrf') fields[name] = formValues(value);
  return fields;
}

/** An API detail ("url: url must be …") as a sentence above a form. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}${/[.!?]$/.test(trimmed) ? '' : '.'}`;
}

/** A part of a page read on its own: its value, or why it is unknown. */
async function known<T>(reading: Promise<T>): Promise<Known<T>> {
  try {
    return { ok: true, value: await reading };
  } catch (error) {
    return { ok: false, error: (error instanceof Error ? error.message : String(error)).slice(0, 200) };
  }
}

function oneOf<T extends string>(raw: string | undefined, allowed: readonly T[]): T | undefined {
  return (allowed as readonly string[]).includes(raw ?? '') ? (raw as T) : undefined;
}

function deliveryId(raw: string): number | null {
  const id = Number(raw);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}
