/** Admin API of subscriptions and their deliveries, behind `Authorization: Bearer $ADMIN_TOKEN`. */
import { Hono } from 'hono';
import { ApiError } from '../../core/errors.ts';
import { webhookMessageId } from '../../core/fanout.ts';
import type { Delivery, DeliveryAttemptRecord, DeliveryState, OutboxStore, StoredSubscription, SubscriptionStore } from '../../core/ports.ts';
import { CHANNELS, hasSealedUrl, opsgenieRegionOf, parseAppTarget, sealedUrlHost, type Channel, type SubscriptionStatus } from '../../core/subscription.ts';
import { groupIdOfTarget } from '../../core/scim-group.ts';
import { iso } from '../api-json.ts';
import { instantParam, pageRequest } from '../query-params.ts';
import { jsonBody } from '../json-body.ts';
import { replayDeliveriesSince, replayDelivery, type ReplayDeps } from '../../app/delivery-replay.ts';
import { deliveryDetail, parseDeliveryId } from '../../app/delivery-detail.ts';
import { deliveryPage, type ListDeps, subscriptionPage } from '../../app/subscription-lists.ts';
import { replayRequestSchema } from '../openapi/api-schemas.ts';
import { parseRequest } from '../../core/parse-request.ts';
import { type SubscriptionRequestDeps, subscriptionRequests } from '../../app/subscription-requests.ts';
import { type AdminGuardDeps, requireAdmin } from './admin.ts';

const STATUSES: SubscriptionStatus[] = ['pending', 'active', 'paused'];
const DELIVERY_STATES: DeliveryState[] = ['pending', 'done', 'dead'];

/** The admin API's guard, and what its use cases take: requests, lists and replays, plus the two reads it answers itself. */
export type SubscriptionRouteDeps = AdminGuardDeps &
  SubscriptionRequestDeps &
  ListDeps &
  ReplayDeps & { store: Pick<SubscriptionStore, 'getSubscription'> & Pick<OutboxStore, 'getDelivery'> };

export function subscriptionRoutes(deps: SubscriptionRouteDeps) {
  const { store, subscriptions } = deps;
  const app = new Hono();
  app.use('/api/subscriptions', requireAdmin(deps));
  app.use('/api/subscriptions/*', requireAdmin(deps));
  app.use('/api/deliveries', requireAdmin(deps));
  app.use('/api/deliveries/*', requireAdmin(deps));
  app.use('/api/delivery-replays', requireAdmin(deps));

  // The same checks the admin pages' forms go through (subscription-requests.ts).
  const requests = subscriptionRequests(deps);

  app.post('/api/subscriptions', async (c) => {
    const { subscription, secret } = await requests.create(await jsonBody(c));
    return c.json({ ok: true, subscription: toApiSubscription(subscription), ...(secret ? { secret } : {}) }, 201);
  });

  app.get('/api/subscriptions', async (c) => {
    const status = enumParam(c.req.query('status'), STATUSES, 'status');
    const channel = enumParam(c.req.query('channel'), CHANNELS as Channel[], 'channel');
    const { page, next } = await subscriptionPage(deps, { status, channel }, { list: 'subscriptions', ...pageRequest(c) });
    return c.json({ ok: true, subscriptions: page.map(toApiSubscription), response_metadata: { next_cursor: next } });
  });

  app.get('/api/subscriptions/:id', async (c) => {
    const subscription = await store.getSubscription(c.req.param('id'));
    if (!subscription) throw new ApiError(404, 'subscription_not_found', 'no subscription with that id');
    return c.json({ ok: true, subscription: toApiSubscription(subscription) });
  });

  app.patch('/api/subscriptions/:id', async (c) => {
    const updated = await requests.update(c.req.param('id'), await jsonBody(c));
    return c.json({ ok: true, subscription: toApiSubscription(updated) });
  });

  app.post('/api/subscriptions/:id/pause', async (c) => {
    return c.json({ ok: true, subscription: toApiSubscription(await subscriptions.pause(c.req.param('id'))) });
  });

  app.post('/api/subscriptions/:id/resume', async (c) => {
    const subscription = await subscriptions.resume(c.req.param('id'));
    return c.json({ ok: true, subscription: toApiSubscription(subscription) });
  });

  app.post('/api/subscriptions/:id/rotate-secret', async (c) => {
    const { subscription, secret } = await subscriptions.rotateSecret(c.req.param('id'));
    return c.json({ ok: true, subscription: toApiSubscription(subscription), secret });
  });

  app.delete('/api/subscriptions/:id', async (c) => {
    await subscriptions.remove(c.req.param('id'));
    return c.json({ ok: true });
  });

  app.post('/api/subscriptions/:id/test', async (c) => {
    const results = await subscriptions.sendTest(c.req.param('id'));
    return c.json({
      ok: results.every((r) => r.ok),
      results: results.map((r) => ({ event_type: r.eventType, ok: r.ok, status: r.status, error: r.error })),
    });
  });

  app.get('/api/deliveries', async (c) => {
    const state = enumParam(c.req.query('state'), DELIVERY_STATES, 'state');
    const subscriptionId = c.req.query('subscription') || undefined;
    const sinceMs = instantParam(c, 'since');
    const { page, next } = await deliveryPage(deps, { state, subscriptionId, sinceMs }, { list: 'deliveries', ...pageRequest(c) });
    return c.json({ ok: true, deliveries: await Promise.all(page.map((d) => toApiDelivery(d))), response_metadata: { next_cursor: next } });
  });

  app.get('/api/deliveries/:id', async (c) => {
    const found = await deliveryDetail(deps, c.req.param('id'));
    if (!found) throw new ApiError(404, 'delivery_not_found', 'no delivery with that id');
    return c.json({ ok: true, delivery: await toApiDelivery(found.delivery, found.attempts) });
  });

  app.post('/api/deliveries/:id/replay', async (c) => {
    if (!(await replayDelivery(deps, deliveryId(c.req.param('id'))))) throw new ApiError(404, 'delivery_not_found', 'no delivery with that id');
    return c.json({ ok: true, replayed: 1 });
  });

  // Not /api/deliveries/replay: beside /api/deliveries/:id/replay that shape makes Hono's
  // RegExpRouter give up, and every request of the app would be routed by the slower trie.
  app.post('/api/delivery-replays', async (c) => {
    const body = parseRequest(replayRequestSchema, await jsonBody(c));
    const replayed = await replayDeliveriesSince(deps, { since: body.since, subscriptionId: body.subscription, state: body.state });
    return c.json({ ok: true, replayed });
  });

  return app;
}

/** Where it sends, by the names a request to subscribe uses: `url`, `email`, `installation` and `conversation`, or `region`. */
function targetFields(s: StoredSubscription): Record<string, string> {
  // A group subscription shows its directory group, not its internal target.
  const group = groupIdOfTarget(s.target);
  if (group !== null) return { group };
  if (s.channel === 'email') return { email: s.target };
  // The URL authorizes posting: only its host is ever shown.
  if (hasSealedUrl(s.channel)) return { url_host: sealedUrlHost(s.target) };
  // An on-call tool's key is never shown: only where an Opsgenie account lives.
  if (s.channel === 'pagerduty') return {};
  if (s.channel === 'opsgenie') return { region: opsgenieRegionOf(s.target) };
  const app = s.channel === 'app' ? parseAppTarget(s.target) : null;
  return app ? { installation: app.installationId, conversation: app.conversationId } : { url: s.target };
}

export function toApiSubscription(s: StoredSubscription, now = Date.now()) {
  return {
    id: s.id,
    channel: s.channel,
    ...targetFields(s),
    filters: s.filters,
    timezone: s.timeZone,
    status: s.status,
    origin: s.origin,
    paused_reason: s.pausedReason,
    // Never the secret itself: it is shown once, when made or rotated.
    ...(s.channel === 'webhook' ? { secret_rotating_until: s.previousSecretUntil && s.previousSecretUntil > now ? iso(s.previousSecretUntil) : null } : {}),
    failing_since: s.failingSince === null ? null : iso(s.failingSince),
    last_success_at: s.lastSuccessAt === null ? null : iso(s.lastSuccessAt),
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

async function toApiDelivery(d: Delivery, attempts?: DeliveryAttemptRecord[]) {
  return {
    id: d.id,
    subscription_id: d.subscriptionId,
    channel: d.channel,
    event_ids: d.eventIds,
    ...(d.channel === 'webhook' ? { webhook_id: await webhookMessageId(d.key) } : {}),
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.state === 'pending' ? iso(d.nextAttemptAt) : null,
    created_at: iso(d.createdAt),
    finished_at: d.finishedAt === null ? null : iso(d.finishedAt),
    last_error: d.lastError,
    ...(attempts
      ? {
          attempt_log: attempts.map((a) => ({
            attempted_at: iso(a.attemptedAt),
            ok: a.ok,
            status: a.status,
            duration_ms: a.durationMs,
            response_excerpt: a.responseExcerpt,
            error: a.error,
          })),
        }
      : {}),
  };
}

function enumParam<T extends string>(raw: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw new ApiError(400, 'invalid_request', `${name} must be one of ${allowed.join(', ')}`);
  return raw as T;
}

function deliveryId(raw: string): number {
  const id = parseDeliveryId(raw);
  if (id === null) throw new ApiError(404, 'delivery_not_found', 'no delivery with that id');
  return id;
}
