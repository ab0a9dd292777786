/**
 * The admin pages of deliveries, under the admin session and its CSRF checks (registered by
 * admin-pages.tsx): the outbox, newest first, each delivery with its attempts, and replay (one,
 * or all since a time) through the same use cases as the JSON API.
 */
import type { Hono } from 'hono';
import { replayDeliveriesSince, replayDelivery, type ReplayDeps } from '../../app/delivery-replay.ts';
import { deliveryPage, type ListDeps } from '../../app/subscription-lists.ts';
import { deliveryDetail, parseDeliveryId } from '../../app/delivery-detail.ts';
import { subscriptionTitleOf, subscriptionTitles, type TitleDeps } from '../../app/subscription-titles.ts';
import { type ChoiceDeps, type SubscriptionSearch, searchSubscriptions, subscriptionChoices } from '../../app/subscription-choices.ts';
import { ApiError } from '../../core/errors.ts';
import { webhookMessageId } from '../../core/fanout.ts';
import type { Delivery, OutboxStore } from '../../core/ports.ts';
import { utcDate } from '../../core/service-days.ts';
import { ADMIN_PAGE_SIZE as PAGE_SIZE, type AdminEnv, type AdminPageTools, oneOf } from '../admin-page-tools.ts';
import { formValue, readForm } from '../form-body.ts';
import { DELIVERY_EVENTS_SHOWN, DELIVERY_STATES, DeliveriesPage, DeliveryPage, type DeliveryView } from '../pages/admin-deliveries-page.tsx';

const NOTICES: Record<string, string> = {
  replayed: 'Delivery queued to be sent again, with the same message id.',
};

export type AdminDeliveryPageDeps = ListDeps &
  ReplayDeps &
  TitleDeps &
  ChoiceDeps & { store: Pick<OutboxStore, 'getDelivery' | 'subscriptionsByIds' | 'eventsByIds'> };

export function registerAdminDeliveryPages(app: Hono<AdminEnv>, deps: AdminDeliveryPageDeps, { adminPage, problem }: AdminPageTools): void {
  const { store, clock } = deps;

  app.get('/admin/deliveries', async (c) => {
    const state = oneOf(c.req.query('state'), DELIVERY_STATES);
    const subscription = c.req.query('subscription')?.trim() ?? '';
    const cursor = c.req.query('cursor');
    // Picked from the list by id; past the list's size, typed: an id, or words of a title that
    // name one subscription. Any other text is taken as an id, as the list's links give it.
    const choices = await subscriptionChoices(deps);
    let search: SubscriptionSearch | null = null;
    let subscriptionId = subscription;
    if (subscription && choices === null) {
      search = await searchSubscriptions(deps, subscription);
      const [only] = search.matches;
      if (only && search.matches.length === 1 && !search.partial) {
        subscriptionId = only.id;
        search = null;
      }
    }
    let list: Delivery[];
    let nextCursor: string;
    try {
      ({ page: list, next: nextCursor } = await deliveryPage(
        deps,
        { state, subscriptionId: subscriptionId || undefined },
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
    const titles = await subscriptionTitles(deps, subscribed);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const views: DeliveryView[] = list.map((delivery) => ({
      delivery,
      subscription: subscriptionById.get(delivery.subscriptionId) ?? null,
      title: titles.get(delivery.subscriptionId) ?? null,
      event: eventById.get(delivery.eventIds[0] ?? '') ?? null,
      moreEvents: Math.max(0, delivery.eventIds.length - 1),
    }));
    const params = new URLSearchParams();
    if (state) params.set('state', state);
    if (subscriptionId) params.set('subscription', subscriptionId);
    // The count the replay's redirect carried: a whole number, or no notice at all.
    const replayedParam = c.req.query('replayed') ?? '';
    const replayed = /^\d{1,9}$/.test(replayedParam) ? Number(replayedParam) : null;
    const notice = replayed === null ? null : `${replayed} ${replayed === 1 ? 'delivery' : 'deliveries'} queued to be sent again.`;
    const data = {
      deliveries: views,
      state: state ?? '',
      subscription,
      subscriptionId,
      choices,
      search,
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
    const found = await deliveryDetail(deps, c.req.param('id'));
    if (!found) return problem(c, 404, 'Not found', 'No delivery with that id.', '/admin/deliveries');
    const { delivery, attempts } = found;
    const [webhookId, [subscription], events] = await Promise.all([
      delivery.channel === 'webhook' ? webhookMessageId(delivery.key) : null,
      store.subscriptionsByIds([delivery.subscriptionId]),
      store.eventsByIds(delivery.eventIds.slice(0, DELIVERY_EVENTS_SHOWN)),
    ]);
    const title = subscription ? await subscriptionTitleOf(deps, subscription) : null;
    return adminPage(
      c,
      `Delivery #${delivery.id}`,
      <DeliveryPage
        delivery={delivery}
        attempts={attempts}
        webhookId={webhookId}
        csrf={c.get('csrf')}
        subscription={subscription ?? null}
        title={title}
        events={events}
      />,
      NOTICES[c.req.query('done') ?? ''] ?? null,
    );
  });

  app.post('/admin/deliveries/:id/replay', async (c) => {
    const id = parseDeliveryId(c.req.param('id'));
    if (id === null || !(await replayDelivery(deps, id))) return problem(c, 404, 'Not found', 'No delivery with that id.', '/admin/deliveries');
    return c.redirect(`/admin/deliveries/${id}?done=replayed`, 303);
  });
}
