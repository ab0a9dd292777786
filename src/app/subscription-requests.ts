/**
 * An admin's request to create or change a subscription, checked one way whether it came as JSON
 * (the API) or as a form (the admin pages): both build the API's request body and hand it here, so
 * a form and a JSON client can never be held to different rules.
 */
import { ApiError } from '../core/errors.ts';
import type { Clock, StoredSubscription, SubscriptionStore } from '../core/ports.ts';
import { checkAppConversation } from './workspace-app/subscription-targets.ts';
import { appAlreadySubscribed } from './subscriptions.ts';
import {
  CHANGEABLE_TARGET_FIELDS,
  type Channel,
  createSubscriptionSchema,
  hasSealedUrl,
  opsgenieRegionOf,
  parseAppTarget,
  sealedUrlHost,
  TARGET_FIELDS,
  type TargetField,
  updateSubscriptionSchema,
  type NewSubscription,
  servicesOfSource,
} from '../core/subscription.ts';
import type { AppInstalls } from './workspace-app/installs.ts';
import {
  createGroupSubscription,
  type GroupSubscriptionDeps,
  type KnownFiltersCheck,
  isGroupRequest,
  isGroupSubscription,
  updateGroupSubscription,
} from './group-subscriptions.ts';
import { type KnownServicesStore, requireKnownServices, vendorServiceNames } from './known-services.ts';
import { requireKnownSources } from './sources.ts';
import { requireKnownSourceServices, type SourceServiceNamesStore } from './source-service-names.ts';
import { MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import type { SourceStore } from '../core/ports.ts';
import { parseRequest } from '../core/parse-request.ts';
import { installErrorToApi } from './workspace-app/install-refusals.ts';
import { wellFormedPrefix } from '../core/well-formed-text.ts';

/** Stands in for an on-call subscription's sealed key when an edit is checked as a whole subscription; never stored. */
const KEPT_KEY = 'kept';

export type SubscriptionRequests = ReturnType<typeof subscriptionRequests>;

/** What creating and changing a subscription take: the services and settings the HTTP app also holds. */
export type SubscriptionRequestDeps = GroupSubscriptionDeps & {
  store: Pick<SubscriptionStore, 'findSubscription' | 'getSubscription'> & KnownServicesStore & Pick<SourceStore, 'listSources'> & SourceServiceNamesStore;
  clock: Clock;
  /** Plain http: webhook URLs allowed (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivateWebhooks: boolean;
  /** Absent when the workspace app is not configured. */
  appInstalls?: AppInstalls;
};

/** Longest conversation name kept: the vendor's are at most 80 characters; a longer one is cut. */
const CONVERSATION_NAME_MAX_CHARS = 200;

export function subscriptionRequests(deps: SubscriptionRequestDeps) {
  const createSchema = createSubscriptionSchema({ allowPlainHttp: deps.allowPrivateWebhooks });
  // A filter on a name the vendor never uses, or on a source not watched, would silently never
  // match: refused with the known names: the vendor's own for the main feed, a page's components
  // and archived names for the page's entries.
  const known = vendorServiceNames(deps.store, deps.clock);
  const checkFilters: KnownFiltersCheck = async (filters) => {
    await requireKnownSources(deps.store, 'filters.sources', filters?.sources);
    await requireKnownServices(known, 'filters.services', servicesOfSource(filters?.services, MAIN_FEED_SOURCE));
    await requireKnownSourceServices(deps.store, 'filters.services', filters?.services);
  };

  /** An app subscription names an active installation's conversation the app can post to, once; its name as the vendor gives it. */
  async function requirePostableConversation(input: NewSubscription): Promise<string | null> {
    const target = parseAppTarget(input.target);
    if (!target) throw new ApiError(400, 'invalid_request', 'installation and conversation must be ids');
    if (!deps.appInstalls) throw new ApiError(409, 'app_disabled', 'the workspace app is not configured: set APP_CLIENT_ID and APP_CLIENT_SECRET');
    // Checked first to spare the conversation walk; the store's unique index settles a race.
    if (await deps.store.findSubscription('app', input.target)) throw appAlreadySubscribed();
    const check = await checkAppConversation(deps.appInstalls, target.installationId, target.conversationId).catch(installErrorToApi);
    const name = 'conversation' in check ? `#${check.conversation.name}` : target.conversationId;
    const refusals = {
      not_member: `conversation: the app is not a member of ${name}; invite it there first`,
      archived: `conversation: ${name} is archived`,
      not_found: `conversation: the installation sees no conversation ${target.conversationId}`,
      too_many: `conversation: ${target.conversationId} was not among the first conversations the installation sees; try again, or invite the app to it`,
    };
    if (check.kind !== 'postable') throw new ApiError(400, 'invalid_request', refusals[check.kind]);
    return wellFormedPrefix(check.conversation.name, CONVERSATION_NAME_MAX_CHARS) || null;
  }

  return {
    /** `body` as `POST /api/subscriptions` takes it; the webhook's secret comes back this once. */
    async create(body: unknown): Promise<{ subscription: StoredSubscription; secret: string | null }> {
      if (isGroupRequest(body)) return { subscription: await createGroupSubscription(deps, checkFilters, body), secret: null };
      const input = parseRequest(createSchema, body);
      await checkFilters(input.filters);
      const targetName = input.channel === 'app' ? await requirePostableConversation(input) : null;
      return deps.subscriptions.create(targetName === null ? input : { ...input, targetName });
    },

    /** `body` as `PATCH /api/subscriptions/:id` takes it. */
    async update(id: string, body: unknown): Promise<StoredSubscription> {
      const current = await deps.store.getSubscription(id);
      if (!current) throw new ApiError(404, 'subscription_not_found', 'no subscription with that id');
      if (isGroupSubscription(current)) return updateGroupSubscription(deps, checkFilters, current, body);
      const patch = parseRequest(updateSubscriptionSchema, body);
      await checkFilters(patch.filters);
      const app = current.channel === 'app' ? parseAppTarget(current.target) : null;
      refuseForeignFields(current.channel, patch);
      // The stored key stays sealed: an edit that does not bring a new one is checked with a stand-in.
      const newKey = current.channel === 'pagerduty' ? patch.routing_key : patch.api_key;
      const key = newKey ?? KEPT_KEY;
      // A sealed URL is not kept in the clear: with no new one, a stand-in on its host passes the URL rule, and the seal stays.
      const sealed = hasSealedUrl(current.channel);
      const keptUrl = sealed ? `https://${sealedUrlHost(current.target)}/` : current.target;
      // Validated as a whole subscription, so an update obeys the same rules as a creation.
      const merged = parseRequest(createSchema, {
        channel: current.channel,
        ...(app
          ? { installation: app.installationId, conversation: app.conversationId }
          : current.channel === 'pagerduty'
            ? { routing_key: key }
            : current.channel === 'opsgenie'
              ? { api_key: key, region: patch.region ?? opsgenieRegionOf(current.target) }
              : current.channel === 'email'
                ? { email: patch.email ?? current.target }
                : { url: patch.url ?? keptUrl }),
        // `monitor` stays as it was unless the patch says: an older subscription is not opted in by an edit.
        filters: { ...(patch.filters ?? current.filters), monitor: patch.filters?.monitor ?? current.filters.monitor ?? false },
        timezone: patch.timezone ?? current.timeZone,
      });
      const target = sealed && patch.url === undefined ? undefined : merged.target;
      return deps.subscriptions.update(id, {
        ...(target === undefined ? {} : { target }),
        filters: merged.filters,
        timeZone: merged.timeZone,
        ...(newKey !== undefined ? { key: merged.key } : {}),
      });
    },
  };
}

/** A change brings only the fields its channel's creation takes (CHANGEABLE_TARGET_FIELDS): another is refused, saying which. */
function refuseForeignFields(channel: Channel, patch: Partial<Record<TargetField, unknown>>): void {
  const takes = CHANGEABLE_TARGET_FIELDS[channel];
  const foreign = TARGET_FIELDS.filter((field) => patch[field] !== undefined && !takes.includes(field));
  if (foreign.length === 0) return;
  // Where an app subscription posts is fixed: another conversation is another subscription (its own messages).
  if (channel === 'app')
    throw new ApiError(400, 'invalid_request', 'an app subscription’s installation and conversation cannot be changed: create a new subscription');
  throw new ApiError(400, 'invalid_request', `a ${channel} subscription has ${takes.join(' and ')}, not ${foreign.join(' or ')}`);
}
