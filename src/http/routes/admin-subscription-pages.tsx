/**
 * The admin pages of subscriptions, under the admin session and its CSRF checks (registered by
 * admin-pages.tsx): the list, a new subscription of any kind, a subscription's own page and form,
 * and its buttons (pause, resume, delete, rotate the secret, send a test). The forms build the
 * API's request body and go through the same use cases as `POST` and `PATCH /api/subscriptions`.
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type ListDeps, subscriptionPage } from '../../app/subscription-lists.ts';
import { type SubscriptionRequestDeps, subscriptionRequests } from '../../app/subscription-requests.ts';
import type { TestSendResult } from '../../app/subscriptions.ts';
import { subscriptionTitleOf, subscriptionTitles, type TitleDeps } from '../../app/subscription-titles.ts';
import { ApiError } from '../../core/errors.ts';
import type { SourceStore, StoredSubscription, SubscriptionStore } from '../../core/ports.ts';
import { sourceChoices } from '../../app/sources.ts';
import { CHANNELS, type Channel } from '../../core/subscription.ts';
import { ADMIN_PAGE_SIZE as PAGE_SIZE, type AdminEnv, type AdminPageTools, oneOf } from '../admin-page-tools.ts';
import { formValues, readForm, type FormBody } from '../form-body.ts';
import {
  CreateSubscriptionPage,
  NEW_SUBSCRIPTION_FIELDS,
  SecretOncePage,
  sharedFieldsOf,
  sharedRequestBody,
  SubscriptionPage,
} from '../pages/admin-subscription-form.tsx';
import { SUBSCRIPTION_STATUSES, SubscriptionsPage, TestResultsPage } from '../pages/admin-subscriptions-page.tsx';
import { first, formKind, SUBSCRIPTION_FORM_KINDS, type FormFields, type KindFieldDeps, type SubscriptionFormKind } from '../pages/subscription-kinds.tsx';

/** What a redirect after an action says on the next page; a fixed list, so no text comes from the URL. */
const NOTICES: Record<string, string> = {
  paused: 'Subscription paused: nothing is sent to it until it is resumed.',
  resumed: 'Subscription resumed: what waited while it was paused goes out now.',
  deleted: 'Subscription deleted, with its deliveries not yet sent.',
  saved: 'Changes saved.',
};

export type AdminSubscriptionPageDeps = SubscriptionRequestDeps &
  ListDeps &
  KindFieldDeps &
  TitleDeps & { store: Pick<SubscriptionStore, 'getSubscription'> & Pick<SourceStore, 'listSources' | 'allComponentStates'> };

export function registerAdminSubscriptionPages(app: Hono<AdminEnv>, deps: AdminSubscriptionPageDeps, { adminPage, problem, refused }: AdminPageTools): void {
  const { store, subscriptions, clock } = deps;

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
      titles: await subscriptionTitles(deps, list),
      status: status ?? '',
      channel: channel ?? '',
      health: failing ? 'failing' : '',
      params,
      nextCursor,
      onFirstPage: !cursor,
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
    const data = { kind, kindFields, fields, error: error?.message ?? null, csrf: c.get('csrf'), sources: await sourceChoices(store) };
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
    const title = await subscriptionTitleOf(deps, subscription);
    const data = {
      subscription,
      title,
      kind,
      kindFields,
      fields,
      error: error?.message ?? null,
      csrf: c.get('csrf'),
      now: clock.now(),
      sources: await sourceChoices(store),
    };
    const notice = error ? null : (NOTICES[c.req.query('done') ?? ''] ?? null);
    return adminPage(c, `Subscription: ${title.title}`, <SubscriptionPage data={data} />, notice, error?.status ?? 200);
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
      const title = await subscriptionTitleOf(deps, subscription);
      return adminPage(c, 'Subscription created', <SecretOncePage subscription={subscription} title={title} secret={secret} rotated={false} />, null, 201);
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
      const title = await subscriptionTitleOf(deps, subscription);
      return adminPage(c, 'New signing secret', <SecretOncePage subscription={subscription} title={title} secret={secret} rotated />);
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
      // Back to the subscription's page, where its buttons are, unless it is gone.
      return c.redirect(action === 'delete' ? `/admin/subscriptions?done=${done}` : `/admin/subscriptions/${encodeURIComponent(id)}?done=${done}`, 303);
    });
  subscriptionAction('pause', 'paused');
  subscriptionAction('resume', 'resumed');
  subscriptionAction('delete', 'deleted');

  app.post('/admin/subscriptions/:id/test', async (c) => {
    const id = c.req.param('id');
    const subscription = await store.getSubscription(id);
    if (!subscription) return problem(c, 404, 'Not found', 'No subscription with that id.', '/admin/subscriptions');
    const title = await subscriptionTitleOf(deps, subscription);
    let results: TestSendResult[];
    try {
      results = await subscriptions.sendTest(id);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const back = `/admin/subscriptions/${encodeURIComponent(id)}`;
      return problem(c, error.status, `Test not sent to ${title.title}`, `${sentence(error.detail ?? error.code)}`, back);
    }
    return adminPage(c, `Test sent to ${title.title}`, <TestResultsPage subscription={subscription} title={title} results={results} />);
  });
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
