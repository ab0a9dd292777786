/** Decides which deliveries one poll's events cause, as outbox rows with keys that are the same however often the poll is planned. */
import { isComponentEvent, isIncidentEvent, type StatusEvent } from './events.ts';
import type { Hashes } from './ports.ts';
import { componentOutageMoved, componentServiceNamesOf } from './statuspage/component-events.ts';
import { sourceOfIncidentId } from './statuspage/mapping.ts';
import { isOnCallChannel, servicesOfSource, subscribedSources, type Channel, type Subscription, type SubscriptionFilters } from './subscription.ts';
import { webCryptoHashes } from './web-crypto-hashes.ts';

/** One outbox row: written in the same transaction as the events, unique by `key`. */
export type PlannedDelivery = {
  key: string;
  subscriptionId: string;
  channel: Channel;
  /** The events this delivery stands for, in the batch's order (oldest first): one for a webhook. */
  eventIds: string[];
};

/**
 * Whether a subscription wants an event. Every list present and non-empty must match (AND);
 * within a list any entry may match (OR).
 *
 * - sources: the event's source is one the subscription receives from (subscribedSources): the
 *   listed ones, or the main feed alone when none are listed, so a subscription made before a
 *   source was added never receives its events until someone edits it. Monitor events are the
 *   main feed's.
 * - services: only the entries of the event's source count (serviceFilterEntry); a source with
 *   none is not narrowed by services. Within them: the incident's services and the filter share a name, compared exactly (they are
 *   the vendor's names). An incident that names no services matches every service filter: the
 *   vendor names none for some platform-wide incidents, and a notice too many beats a missed
 *   outage. When an `incident.updated` changed the services, the old list counts as well as the
 *   new one, so subscribers to a service the incident moved away from hear that it did.
 * - types: the incident's type is listed, ignoring case. A changed type counts both ways, for the
 *   same reason as services.
 * - events: the event's type is listed.
 *
 * Monitor events (`monitor.blind`, `monitor.recovered`) concern the whole feed, so services and
 * types do not narrow them: they pass when `events` lists them, or, with no `events` list, when
 * `monitor` is true (the default of subscriptions made since they exist; older ones keep what
 * they asked for until they opt in).
 *
 * A component event (`component.status_changed`) is its source's, so only a subscription that
 * chose the source gets it (never one of the main feed alone). The source's services narrow it
 * by the component's name (or "Group / Name", as the source's services list it); types do not,
 * being incidents' types; and an `events` list must name it, so a list chosen before the type
 * existed never gains it.
 */
export function matchesFilters(filters: SubscriptionFilters, event: StatusEvent): boolean {
  return filtersMatcher(filters)(event);
}

/**
 * matchesFilters for one subscription, its lists made into sets once: planning a poll asks it of
 * every event for every subscription.
 */
export function filtersMatcher(filters: SubscriptionFilters): (event: StatusEvent) => boolean {
  const sources = new Set(subscribedSources(filters));
  const servicesBySource = new Map<string, Set<string>>();
  for (const source of sources) {
    const names = servicesOfSource(filters.services, source);
    if (names.length > 0) servicesBySource.set(source, new Set(names));
  }
  const types = isSet(filters.types) ? new Set(filters.types.map((t) => t.toLowerCase())) : null;
  const events = isSet(filters.events) ? new Set<string>(filters.events) : null;
  const monitor = filters.monitor === true;
  return (event) => {
    const source = sourceOfIncidentId(event.incidentId);
    if (!sources.has(source)) return false;
    if (isComponentEvent(event)) {
      const wanted = servicesBySource.get(source);
      if (wanted && !componentServiceNamesOf(event.data.component).some((name) => wanted.has(name))) return false;
      return events ? events.has(event.type) : true;
    }
    if (!isIncidentEvent(event)) return events ? events.has(event.type) : monitor;
    const { data } = event;
    const changes = data.type === 'incident.updated' ? data.changes : {};
    const wanted = servicesBySource.get(source);
    if (wanted) {
      const lists = [data.incident.services, ...(changes.services ? [changes.services.from] : [])];
      if (!lists.some((services) => services.length === 0 || services.some((s) => wanted.has(s)))) return false;
    }
    if (types) {
      const seen = [data.incident.type, ...(changes.type ? [changes.type.from] : [])];
      if (!seen.some((type) => types.has(type.toLowerCase()))) return false;
    }
    if (events && !events.has(event.type)) return false;
    return true;
  };
}

/**
 * The deliveries a batch of events causes: the batch is one poll's events. Only active
 * subscriptions receive anything, and backfill events (history recorded while seeding) cause
 * nothing.
 *
 * A webhook gets one delivery per event, keyed `<event id>|<subscription id>`. Email and channel
 * get one per incident: the incident's events in this batch that pass the filters, so "Resolved"
 * and its final note make one message (notification-message.ts groups them the same way). Its
 * key joins those event ids, sorted, with `+`: the ids are deterministic (events.ts), so planning
 * the same poll again gives the same keys, and a group of one has the webhook's key shape.
 *
 * An on-call tool (PagerDuty, Opsgenie) hears of a component only when it enters or leaves an
 * outage: the alert the component's outage opens, and its close (oncall-alert.ts).
 *
 * Output order: subscriptions in the given order; within one, events or incidents in the order
 * they first appear in the batch.
 */
export function planDeliveries(events: readonly StatusEvent[], subscriptions: readonly Subscription[]): PlannedDelivery[] {
  const news = newsOf(events);
  const deliveries: PlannedDelivery[] = [];
  for (const subscription of subscriptions) {
    if (subscription.status !== 'active') continue;
    const matches = filtersMatcher(subscription.filters);
    // An on-call tool pages people: of a component, it hears only an outage begun or ended (oncall-alert.ts).
    const onCall = isOnCallChannel(subscription.channel);
    const wanted = news.filter((e) => matches(e) && !(onCall && isComponentEvent(e) && !componentOutageMoved(e.data)));
    if (subscription.channel === 'webhook') {
      for (const event of wanted) deliveries.push(delivery(subscription, [event.id]));
    } else {
      for (const group of byIncident(wanted))
        deliveries.push(
          delivery(
            subscription,
            group.map((e) => e.id),
          ),
        );
    }
  }
  return deliveries;
}

/** Non-backfill events, each id once: a repeated id would break the outbox's unique key and with it the poll's write. */
function newsOf(events: readonly StatusEvent[]): StatusEvent[] {
  const seen = new Set<string>();
  const news: StatusEvent[] = [];
  for (const event of events) {
    if (event.backfill || seen.has(event.id)) continue;
    seen.add(event.id);
    news.push(event);
  }
  return news;
}

function byIncident(events: readonly StatusEvent[]): StatusEvent[][] {
  const groups = new Map<string, StatusEvent[]>();
  for (const event of events) {
    const group = groups.get(event.incidentId);
    if (group) group.push(event);
    else groups.set(event.incidentId, [event]);
  }
  return [...groups.values()];
}

function delivery(subscription: Subscription, eventIds: string[]): PlannedDelivery {
  // Code-unit order, not locale order: the key must not depend on the runtime's ICU data.
  const sorted = [...eventIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    key: `${sorted.join('+')}|${subscription.id}`,
    subscriptionId: subscription.id,
    channel: subscription.channel,
    eventIds,
  };
}

function isSet<T>(list: readonly T[] | undefined): list is readonly T[] {
  return list !== undefined && list.length > 0;
}

const MESSAGE_ID_BYTES = 16;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * The `webhook-id` of a delivery: `msg_` and the lower-case base32 (RFC 4648, unpadded) of the
 * first 16 bytes of SHA-256(key). Derived from the outbox key, so every retry, even after a
 * restart, carries the same id (the receiver's idempotency key); hashing keeps it opaque and
 * short (30 characters) whatever the vendor's ids look like.
 */
export async function webhookMessageId(key: string, hashes: Hashes = webCryptoHashes): Promise<string> {
  const digest = await hashes.sha256(key);
  return `msg_${base32(digest.subarray(0, MESSAGE_ID_BYTES))}`;
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}
