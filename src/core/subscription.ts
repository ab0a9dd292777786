/** Who wants which news, where: the subscription types and the zod schemas that parse a request to subscribe. */
import { z } from 'zod';
import { singleAddress } from './email-address.ts';
import { EVENT_TYPES, type EventType } from './events.ts';
import { isSourceId, MAIN_FEED_SOURCE } from './statuspage/mapping.ts';
import { withAllowPrivateHint } from './webhook-target.ts';

/**
 * `channel` is the workspace's team-chat incoming-webhook URL; `webhook` is any receiver of signed
 * events; `app` is a conversation the workspace app posts to, one message per incident.
 * `pagerduty` (Events API v2) and `opsgenie` (Alert API) page on-call: one alert per incident,
 * keyed so every change lands on it and resolution closes it; their keys are sealed at rest.
 * `teams` (a Workflows webhook: an Adaptive Card per change) and `discord` (a channel webhook: one
 * message per incident, edited in place) hold a URL that authorizes posting: it is sealed at rest
 * (sealedUrlTarget), never shown but for its host.
 */
export type Channel = 'webhook' | 'email' | 'channel' | 'app' | 'pagerduty' | 'opsgenie' | 'teams' | 'discord';

export const CHANNELS: readonly Channel[] = ['webhook', 'email', 'channel', 'app', 'pagerduty', 'opsgenie', 'teams', 'discord'];

/** The channels whose subscriptions hold a key of the tool's (sealed like a webhook's secret) instead of a URL or an address. */
export type OnCallChannel = 'pagerduty' | 'opsgenie';

export function isOnCallChannel(channel: Channel): channel is OnCallChannel {
  return channel === 'pagerduty' || channel === 'opsgenie';
}

/** Opsgenie keeps each account in one region, with its own API host. */
export type OpsgenieRegion = 'us' | 'eu';
export const OPSGENIE_REGIONS: readonly OpsgenieRegion[] = ['us', 'eu'];

/**
 * An on-call subscription's target, as the admin pages show it: the key is the secret, so the
 * target names only the tool (and Opsgenie's region, which its sends read back with opsgenieRegionOf).
 */
export const PAGERDUTY_TARGET = 'PagerDuty Events API v2';

export function opsgenieTarget(region: OpsgenieRegion): string {
  return `Opsgenie ${region.toUpperCase()}`;
}

/** The region of an Opsgenie subscription's target; US, Opsgenie's default, for anything else. */
export function opsgenieRegionOf(target: string): OpsgenieRegion {
  return target === opsgenieTarget('eu') ? 'eu' : 'us';
}

/** The channels whose URL is a secret: sealed in `secretSealed`, the target only its host and a fingerprint. */
export const SEALED_URL_CHANNELS: readonly Channel[] = ['teams', 'discord'];

export function hasSealedUrl(channel: Channel): boolean {
  return SEALED_URL_CHANNELS.includes(channel);
}

/**
 * What a sealed-URL subscription shows and is found by instead of its URL: `host#fingerprint`,
 * the fingerprint the first 8 bytes of the URL's SHA-256 in hex, so two URLs on one host can be
 * told apart and the same URL given twice is recognized, while the token in the URL stays unknown.
 */
export async function sealedUrlTarget(url: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(url)));
  const hex = Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${new URL(url).host}#${hex}`;
}

/** The host a sealed-URL target shows (sealedUrlTarget). */
export function sealedUrlHost(target: string): string {
  return target.split('#')[0] ?? target;
}

/**
 * Each list narrows what is sent; an absent or empty list lets everything through (fanout.ts),
 * but for `sources`: absent, only the main feed ("main"), so adding a source never changes what an
 * existing subscription receives; listed, only those sources (ids as GET /api/sources lists them).
 * A `services` entry is a main-feed service's name, or `<source id>:<service>` for a source's
 * (serviceFilterEntry). `monitor`: with no `events` list, whether `monitor.*` events come too;
 * true for new subscriptions.
 */
export type SubscriptionFilters = { services?: string[]; types?: string[]; events?: EventType[]; monitor?: boolean; sources?: string[] };

const MAIN_FEED_ALONE: readonly string[] = [MAIN_FEED_SOURCE];

/** The sources a subscription receives from: those it lists, or the main feed alone. */
export function subscribedSources(filters: Pick<SubscriptionFilters, 'sources'>): readonly string[] {
  return filters.sources && filters.sources.length > 0 ? filters.sources : MAIN_FEED_ALONE;
}

/**
 * A `filters.services` entry as the source it concerns and the service's name: `src_ab12:Actions`
 * is the service "Actions" of source src_ab12 (a page's component, named as its incidents name it);
 * an entry without a source id and a colon before the name is the main feed's, as before sources
 * existed (`main:Files` says the same as `Files`).
 */
export function serviceFilterEntry(entry: string): { source: string; service: string } {
  const colon = entry.indexOf(':');
  if (colon > 0) {
    const source = entry.slice(0, colon);
    const service = entry.slice(colon + 1);
    if (isSourceId(source) && service.trim() !== '') return { source, service };
  }
  return { source: MAIN_FEED_SOURCE, service: entry };
}

/** The service names `services` lists for one source (serviceFilterEntry). */
export function servicesOfSource(services: readonly string[] | undefined, source: string): string[] {
  const names: string[] = [];
  for (const entry of services ?? []) {
    const parsed = serviceFilterEntry(entry);
    if (parsed.source === source) names.push(parsed.service);
  }
  return names;
}

/** Only `active` subscriptions are sent anything (fanout.ts). */
export type SubscriptionStatus = 'pending' | 'active' | 'paused';

export type Subscription = {
  id: string;
  channel: Channel;
  /**
   * The URL for `webhook` and `channel` (`host#fingerprint` for `teams` and `discord`:
   * sealedUrlTarget), the address for `email`, `<installation>/<conversation>` for `app`
   * (appTarget), PAGERDUTY_TARGET for `pagerduty`, opsgenieTarget(region) for `opsgenie`.
   */
  target: string;
  filters: SubscriptionFilters;
  /** IANA zone in which emails write times; UTC unless the subscriber asked otherwise. */
  timeZone: string;
  status: SubscriptionStatus;
};

/**
 * What a valid request to subscribe becomes; the caller adds the id and the status. `key`: the
 * on-call tool's routing key or API key, in the clear until the use case seals it.
 */
export type NewSubscription = Pick<Subscription, 'channel' | 'target' | 'filters' | 'timeZone'> & {
  key?: string;
  /** The target's name where the target is an id (an app subscription's conversation), as the vendor gave it. */
  targetName?: string | null;
};

/** Most entries one filter list may have: enough for every service the vendor names, small enough to index. */
export const FILTER_MAX_ENTRIES = 50;
const FILTER_ENTRY_MAX_CHARS = 100;
const URL_MAX_CHARS = 2048;
export const DEFAULT_TIME_ZONE = 'UTC';

const nameList = (name: string, normalize: (entry: string) => string) =>
  z
    .array(
      z
        .string({ error: `${name} entries must be strings` })
        .trim()
        .min(1, `${name} entries must not be empty`)
        .max(FILTER_ENTRY_MAX_CHARS, `${name} entries must be at most ${FILTER_ENTRY_MAX_CHARS} characters`),
      { error: `${name} must be a list of strings` },
    )
    .max(FILTER_MAX_ENTRIES, `${name} may list at most ${FILTER_MAX_ENTRIES} entries`)
    .transform((entries) => dedupe(entries.map(normalize)));

/**
 * Services keep their case: they are the vendor's exact names. Types are lower-cased, as the
 * incident's type is (incident.ts).
 */
export const subscriptionFiltersSchema = z
  .strictObject({
    services: nameList('filters.services', (s) => s).optional(),
    types: nameList('filters.types', (t) => t.toLowerCase()).optional(),
    events: z
      .array(z.enum(EVENT_TYPES as [EventType, ...EventType[]], { error: `filters.events entries must be one of ${EVENT_TYPES.join(', ')}` }), {
        error: 'filters.events must be a list of event types',
      })
      .max(FILTER_MAX_ENTRIES, `filters.events may list at most ${FILTER_MAX_ENTRIES} entries`)
      .transform(dedupe)
      .optional(),
    monitor: z.boolean({ error: 'filters.monitor must be true or false' }).optional(),
    sources: z
      .array(
        z
          .string({ error: 'filters.sources entries must be strings' })
          .trim()
          .refine(isSourceId, {
            error: (issue) =>
              `filters.sources entries must be source ids as GET /api/sources lists them ("main" or src_...), got ${JSON.stringify(String(issue.input).slice(0, 100))}`,
          }),
        { error: 'filters.sources must be a list of source ids' },
      )
      .min(1, 'filters.sources must list at least one source; leave it out for the main feed alone')
      .max(FILTER_MAX_ENTRIES, `filters.sources may list at most ${FILTER_MAX_ENTRIES} entries`)
      .transform(dedupe)
      .optional()
      .describe(
        'Source ids as GET /api/sources lists them ("main": the main feed). Absent: the main feed alone, so a page added later reaches no existing subscription. A services entry "<source id>:<service>" narrows that source.',
      ),
  })
  .superRefine((filters, ctx) => {
    // A service of a source the subscription does not receive from would silently never match.
    const sources = subscribedSources(filters);
    for (const entry of filters.services ?? []) {
      const { source } = serviceFilterEntry(entry);
      if (!sources.includes(source)) {
        ctx.addIssue({
          code: 'custom',
          path: ['services'],
          message: `filters.services entry ${JSON.stringify(entry.slice(0, 100))} names source ${source}, which filters.sources does not list${filters.sources ? '' : ' (without filters.sources only the main feed is sent)'}`,
        });
      }
    }
  });

export type SubscriptionFiltersInput = z.input<typeof subscriptionFiltersSchema>;

export type CreateSubscriptionOptions = {
  /** Accept http: URLs too: for receivers on a private network and for local demos, never the default. */
  allowPlainHttp?: boolean;
};

/**
 * The body of a request to subscribe: `{ channel, url | email, filters?, timezone? }`. Unknown
 * keys are refused, so a misspelt `filter` cannot quietly subscribe someone to everything.
 * Whether a URL may be called at all (private addresses) is the sender's guard's job, at
 * subscribe time and again at connect time: that needs DNS, which the core does not have.
 */
export function createSubscriptionSchema(options: CreateSubscriptionOptions = {}) {
  const common = {
    filters: subscriptionFiltersSchema.optional(),
    timezone: timeZoneSchema.optional(),
  };
  return z
    .discriminatedUnion(
      'channel',
      [
        z.strictObject({ channel: z.literal('webhook'), url: urlSchema('webhook', options), ...common }),
        z.strictObject({ channel: z.literal('channel'), url: urlSchema('channel', options), ...common }),
        z.strictObject({ channel: z.literal('email'), email: emailSchema, ...common }),
        z.strictObject({ channel: z.literal('app'), installation: appIdSchema('installation'), conversation: appIdSchema('conversation'), ...common }),
        z.strictObject({ channel: z.literal('pagerduty'), routing_key: toolKeySchema('pagerduty', 'routing_key'), ...common }),
        z.strictObject({ channel: z.literal('opsgenie'), api_key: toolKeySchema('opsgenie', 'api_key'), region: regionSchema.optional(), ...common }),
        z.strictObject({ channel: z.literal('teams'), url: urlSchema('teams', options), ...common }),
        z.strictObject({ channel: z.literal('discord'), url: urlSchema('discord', options), ...common }),
      ],
      { error: (issue) => (issue.code === 'invalid_union' ? `channel must be one of ${CHANNELS.join(', ')}` : undefined) },
    )
    .transform(
      (body): NewSubscription => ({
        channel: body.channel,
        ...targetOf(body),
        // Being told the monitor went blind is on unless asked otherwise.
        filters: { ...body.filters, monitor: body.filters?.monitor ?? true },
        timeZone: body.timezone ?? DEFAULT_TIME_ZONE,
      }),
    );
}

export type CreateSubscriptionInput = z.input<ReturnType<typeof createSubscriptionSchema>>;

type ParsedTarget =
  | { channel: 'webhook' | 'channel' | 'teams' | 'discord'; url: string }
  | { channel: 'email'; email: string }
  | { channel: 'app'; installation: string; conversation: string }
  | { channel: 'pagerduty'; routing_key: string }
  | { channel: 'opsgenie'; api_key: string; region?: OpsgenieRegion };

function targetOf(body: ParsedTarget): Pick<NewSubscription, 'target' | 'key'> {
  switch (body.channel) {
    case 'email':
      return { target: body.email };
    case 'app':
      return { target: appTarget(body.installation, body.conversation) };
    case 'pagerduty':
      return { target: PAGERDUTY_TARGET, key: body.routing_key };
    case 'opsgenie':
      return { target: opsgenieTarget(body.region ?? 'us'), key: body.api_key };
    default:
      return { target: body.url };
  }
}

/**
 * PagerDuty's integration keys are 32 characters and Opsgenie's API keys are UUIDs; the bound is
 * loose so a future format still fits, and printable ASCII keeps the key out of header injection.
 */
const TOOL_KEY_MAX_CHARS = 200;

function toolKeySchema(channel: OnCallChannel, name: 'routing_key' | 'api_key') {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `a ${channel} subscription needs ${name}` : `${name} must be a string`) })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(TOOL_KEY_MAX_CHARS, `${name} must be at most ${TOOL_KEY_MAX_CHARS} characters`)
    .regex(/^[\x21-\x7e]+$/, `${name} must be printable characters without spaces`);
}

const regionSchema = z.enum(OPSGENIE_REGIONS as [OpsgenieRegion, ...OpsgenieRegion[]], { error: `region must be one of ${OPSGENIE_REGIONS.join(', ')}` });

/**
 * The body of a request to change a subscription: any of `url`, `email`, `routing_key`, `api_key`,
 * `region`, `filters`, `timezone`.
 * Unknown keys are refused. Only its shape is checked here: the change is then checked as a whole
 * subscription, by createSubscriptionSchema, so a change obeys the same rules as a creation.
 */
export const updateSubscriptionSchema = z.strictObject({
  url: z.string().optional(),
  email: z.string().optional(),
  routing_key: z.string().optional(),
  api_key: z.string().optional(),
  region: z.string().optional(),
  filters: subscriptionFiltersSchema.optional(),
  timezone: z.string().optional(),
});

/** The fields of a change that say where a subscription sends. */
export type TargetField = 'url' | 'email' | 'routing_key' | 'api_key' | 'region';
export const TARGET_FIELDS: readonly TargetField[] = ['url', 'email', 'routing_key', 'api_key', 'region'];

/**
 * Which of them a change of each channel's subscription may bring: the names its creation takes.
 * Any other is refused, never ignored, so a key sent to the wrong kind of subscription is not
 * taken for a change that happened. An app subscription's conversation is fixed: none.
 */
export const CHANGEABLE_TARGET_FIELDS: Readonly<Record<Channel, readonly TargetField[]>> = {
  webhook: ['url'],
  channel: ['url'],
  email: ['email'],
  app: [],
  pagerduty: ['routing_key'],
  opsgenie: ['api_key', 'region'],
  teams: ['url'],
  discord: ['url'],
};

function urlSchema(channel: 'webhook' | 'channel' | 'teams' | 'discord', { allowPlainHttp = false }: CreateSubscriptionOptions) {
  const expected = allowPlainHttp ? 'an https: or http: URL' : 'an https: URL';
  return z
    .string({ error: (issue) => (issue.input === undefined ? `a ${channel} subscription needs url` : 'url must be a string') })
    .trim()
    .max(URL_MAX_CHARS, `url must be at most ${URL_MAX_CHARS} characters`)
    .superRefine((text, ctx) => {
      const url = parseUrl(text);
      if (!url) {
        ctx.addIssue({ code: 'custom', message: `url must be ${expected}, got ${JSON.stringify(text.slice(0, 100))}` });
      } else if (url.protocol !== 'https:' && !(allowPlainHttp && url.protocol === 'http:')) {
        const message = `url must be ${expected}, got scheme ${url.protocol}`;
        ctx.addIssue({ code: 'custom', message: !allowPlainHttp && url.protocol === 'http:' ? withAllowPrivateHint(message) : message });
      }
    });
}

const APP_ID_MAX_CHARS = 100;

/** An installation id (ours) or a conversation id (the vendor's): letters, digits, `_` and `-`, so `/` can join them. */
function appIdSchema(name: 'installation' | 'conversation') {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `an app subscription needs ${name}` : `${name} must be a string`) })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(APP_ID_MAX_CHARS, `${name} must be at most ${APP_ID_MAX_CHARS} characters`)
    .regex(/^[A-Za-z0-9_-]+$/, `${name} must be an id such as C0123ABCD (letters, digits, _ and -)`);
}

/**
 * An app subscription's target: the installation and the conversation joined by `/`. One column
 * keeps the (channel, target) index and the duplicate check of every other kind working unchanged.
 */
export function appTarget(installationId: string, conversationId: string): string {
  return `${installationId}/${conversationId}`;
}

/** The parts of an app subscription's target, or null when it is not one. */
export function parseAppTarget(target: string): { installationId: string; conversationId: string } | null {
  const match = /^([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/.exec(target);
  return match ? { installationId: match[1]!, conversationId: match[2]! } : null;
}

const emailSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'an email subscription needs email' : 'email must be a string') })
  .transform((text, ctx) => {
    const check = singleAddress(text);
    if (check.ok) return check.address;
    ctx.addIssue({ code: 'custom', message: `email must be one address such as ops@example.com: ${check.reason}` });
    return z.NEVER;
  });

/** A zone Intl knows, in its canonical spelling ("europe/berlin" → "Europe/Berlin"). */
export const timeZoneSchema = z
  .string({ error: 'timezone must be a string' })
  .trim()
  .transform((zone, ctx) => {
    const canonical = canonicalTimeZone(zone);
    if (canonical === null) {
      ctx.addIssue({ code: 'custom', message: `timezone must be an IANA time zone such as Europe/Berlin, got ${JSON.stringify(zone.slice(0, 100))}` });
      return z.NEVER;
    }
    return canonical;
  });

/** Null when the runtime does not know the zone: Intl throws a RangeError for those. */
export function canonicalTimeZone(zone: string): string | null {
  if (zone === '') return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function dedupe<T>(entries: T[]): T[] {
  return [...new Set(entries)];
}

/** The URL, or null if it is none (URL.canParse is missing from Workers' type definitions). */
function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
