/**
 * What admins and the public do with subscriptions: create (with a signing secret for webhooks),
 * change, pause, resume, rotate a secret, send a test of every event type; and the double opt-in
 * email flow (sign up, confirm, unsubscribe, manage) with its tokens and rate limits.
 */
import { checkToken, hashToken, type TokenPurpose } from '../core/confirmation-token.ts';
import { escapeHtml } from '../core/email-render.ts';
import { ApiError } from '../core/errors.ts';
import { componentSubjectId } from '../core/statuspage/component-events.ts';
import { EVENT_TYPES, type EventData, type EventType, type IncidentSummary, type StatusEvent } from '../core/events.ts';
import type {
  Clock,
  LinkTokenStore,
  Logger,
  Mailer,
  OutboxSignal,
  RateLimitStore,
  StoredSubscription,
  SubscriptionPatch,
  SubscriptionStore,
} from '../core/ports.ts';
import { limitKeyForAddress, limitKeyForRecipient, signupLimits } from '../core/rate-limit.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { hasSealedUrl, isOnCallChannel, sealedUrlTarget, type NewSubscription, type SubscriptionFilters } from '../core/subscription.ts';
import { groupIdOfTarget } from '../core/scim-group.ts';
import { generateWebhookSecret } from '../core/webhook-signing.ts';
import { withAllowPrivateHint } from '../core/webhook-target.ts';
import type { ChannelSender } from './channel-sender.ts';

/** A conversation has one app subscription: its messages are edited in place, one per incident. */
export const appAlreadySubscribed = () =>
  new ApiError(409, 'already_subscribed', 'this conversation already has an app subscription: change its filters instead');

/** After a rotation the old secret keeps signing this long, so receivers can switch at their own pace. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export type SubscriptionServiceDeps = {
  store: Pick<SubscriptionStore, 'createSubscription' | 'getSubscription' | 'findSubscription' | 'updateSubscription' | 'deleteSubscription'> &
    Pick<LinkTokenStore, 'findToken' | 'markTokenUsed'> &
    Pick<RateLimitStore, 'hitRateLimit'>;
  secrets: SecretBox;
  sender: ChannelSender;
  /** Null when no mail is configured (SMTP_URL or MAIL_API_TOKEN): no email subscriptions then. */
  mailer: Mailer | null;
  clock: Clock;
  logger: Logger;
  newId: () => string;
  /** Checks a webhook URL before it is stored (the sender checks again at connect time). */
  checkTarget: (url: string) => { ok: true } | { ok: false; reason: string; privateTarget?: boolean };
  /** Told when a resume lets held deliveries go out. */
  outbox: OutboxSignal;
  /** ADMIN_EMAIL: where a group subscription's test goes. */
  adminEmail?: string | null;
};

export type TestSendResult = { eventType: EventType; ok: boolean; status: number | null; error: string | null };

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;

export function createSubscriptionService(deps: SubscriptionServiceDeps) {
  const { store, clock } = deps;

  function checkNew(input: NewSubscription): void {
    if (input.channel === 'email' && !deps.mailer)
      throw new ApiError(409, 'email_disabled', 'email is not configured: set SMTP_URL (or MAIL_API_TOKEN) and MAIL_FROM');
    // An app subscription's target names an installation and a conversation, checked where it is made (workspace-app/subscription-targets.ts).
    if (input.channel === 'webhook' || input.channel === 'channel' || hasSealedUrl(input.channel)) {
      const check = deps.checkTarget(input.target);
      if (!check.ok) {
        const message = `url is not allowed: ${check.reason}`;
        throw new ApiError(400, 'invalid_request', check.privateTarget ? withAllowPrivateHint(message) : message);
      }
    }
  }

  /** The subscription a link token stands for, or an ApiError a page can show. */
  async function redeem(purpose: TokenPurpose, token: string): Promise<StoredSubscription> {
    const hash = await hashToken(purpose, token);
    const record = await store.findToken(hash);
    const check = await checkToken(record, { purpose, token }, clock.now());
    if (!check.ok) {
      const messages = {
        unknown: 'This link is not valid. It may have been mistyped, or the subscription was deleted.',
        expired: 'This link has expired. Sign up again to get a new one.',
        used: 'This link has already been used.',
        wrong_purpose: 'This link is not valid here.',
      };
      throw new ApiError(check.reason === 'used' ? 409 : 404, `token_${check.reason}`, messages[check.reason]);
    }
    const subscription = await store.getSubscription(record!.subscriptionId);
    if (!subscription) throw new ApiError(404, 'token_unknown', 'This subscription no longer exists.');
    return subscription;
  }

  return {
    /** False when no mail server is configured: the sign-up form says so instead of showing. */
    emailEnabled: deps.mailer !== null,

    /** Admin: active at once. Returns the webhook secret in the clear, this once. */
    async create(input: NewSubscription): Promise<{ subscription: StoredSubscription; secret: string | null }> {
      checkNew(input);
      const now = clock.now();
      const secret = input.channel === 'webhook' ? generateWebhookSecret() : null;
      const { key: _key, ...fields } = input;
      // An on-call tool's key is sealed where a webhook's secret is, and so is a teams or discord URL: never shown again.
      const sealed = await sealedTarget(fields);
      const sealable = secret ?? (isOnCallChannel(input.channel) ? requireKey(input) : null);
      const subscription = newRecord(
        { ...fields, target: sealed?.target ?? fields.target },
        { status: 'active', origin: 'admin', secretSealed: sealable ? await deps.secrets.seal(sealable) : (sealed?.secretSealed ?? null) },
        now,
      );
      if (!(await store.createSubscription(subscription))) {
        // Another request created it since the caller looked (subscription-requests.ts).
        throw appAlreadySubscribed();
      }
      return { subscription, secret };
    },

    /** `key`: a new routing key or API key for an on-call subscription, sealed before it is stored. */
    async update(id: string, patch: { target?: string; filters?: SubscriptionFilters; timeZone?: string; key?: string }): Promise<StoredSubscription> {
      const current = await mustGet(id);
      if (patch.target !== undefined) checkNew({ ...current, target: patch.target });
      const { key, ...fields } = patch;
      if (key !== undefined && !isOnCallChannel(current.channel)) throw new ApiError(400, 'invalid_request', `a ${current.channel} subscription has no key`);
      const sealedKey = key !== undefined ? { secretSealed: await deps.secrets.seal(key) } : {};
      const sealedUrl = fields.target !== undefined ? await sealedTarget({ channel: current.channel, target: fields.target }) : null;
      const stored: SubscriptionPatch = { ...fields, ...sealedKey, ...(sealedUrl ?? {}) };
      return (await store.updateSubscription(id, stored, clock.now())) ?? notFound();
    },

    async pause(id: string, reason = 'paused by an admin'): Promise<StoredSubscription> {
      await mustGet(id);
      return (await store.updateSubscription(id, { status: 'paused', pausedReason: reason }, clock.now())) ?? notFound();
    },

    /** Resumes sending, including what waited while paused; the failure run starts afresh. */
    async resume(id: string): Promise<StoredSubscription> {
      const current = await mustGet(id);
      if (current.status === 'pending') throw new ApiError(409, 'not_confirmed', 'this subscription waits for its email confirmation');
      const resumed = (await store.updateSubscription(id, { status: 'active', pausedReason: null, failingSince: null }, clock.now())) ?? notFound();
      deps.outbox.outboxChanged();
      return resumed;
    },

    async remove(id: string): Promise<void> {
      if (!(await store.deleteSubscription(id))) notFound();
    },

    /** A new signing secret; the old one keeps signing for SECRET_ROTATION_GRACE_MS. */
    async rotateSecret(id: string): Promise<{ subscription: StoredSubscription; secret: string }> {
      const current = await mustGet(id);
      if (current.channel !== 'webhook' || !current.secretSealed) throw new ApiError(409, 'not_a_webhook', 'only webhook subscriptions have a signing secret');
      const secret = generateWebhookSecret();
      const patch: SubscriptionPatch = {
        secretSealed: await deps.secrets.seal(secret),
        previousSecretSealed: current.secretSealed,
        previousSecretUntil: clock.now() + SECRET_ROTATION_GRACE_MS,
      };
      const subscription = (await store.updateSubscription(id, patch, clock.now())) ?? notFound();
      return { subscription, secret };
    },

    /** Sends one message of each event type now, outside the outbox, and says how each went. */
    async sendTest(id: string): Promise<TestSendResult[]> {
      const subscription = await mustGet(id);
      // A group's test would mail every member once per event type: it goes to the admin instead.
      const group = groupIdOfTarget(subscription.target) !== null;
      if (group && !deps.adminEmail) {
        throw new ApiError(409, 'admin_email_required', "a group subscription's test is mailed to ADMIN_EMAIL, never to the group's members: set ADMIN_EMAIL");
      }
      const results: TestSendResult[] = [];
      for (const event of sampleEvents(clock.now())) {
        // A fresh key for every test: its webhook-id and the app's records are new each time, so
        // receivers that drop repeated ids (as they should) do not drop every test after the first.
        const sent = await deps.sender.send({ subscription, events: [event], deliveryKey: `test.${crypto.randomUUID()}`, mode: 'test' });
        results.push({ eventType: event.type, ok: sent.kind === 'sent', status: sent.status, error: sent.kind === 'sent' ? null : sent.error });
      }
      return results;
    },

    /**
     * Public sign-up. Whatever the address, the caller shows the same answer ("check your inbox"):
     * a new address gets a confirmation link, a pending one a fresh link, an active one a link to
     * manage it. Rate limits are per client address and per recipient.
     */
    async signUp(input: NewSubscription, clientAddress: string): Promise<void> {
      if (!deps.mailer) throw new ApiError(409, 'email_disabled', 'email sign-up is not available: the server has no mail configured');
      const now = clock.now();
      for (const [key, rule] of [
        [limitKeyForAddress(clientAddress), signupLimits.perClientAddress],
        [limitKeyForRecipient(input.target), signupLimits.perRecipient],
      ] as const) {
        const decision = await store.hitRateLimit(key, rule, now);
        if (!decision.allowed) {
          throw new ApiError(429, 'rate_limited', `too many sign-ups; try again in ${Math.ceil(decision.retryAfterMs / 60_000)} min`, {
            'retry-after': String(Math.ceil(decision.retryAfterMs / 1000)),
          });
        }
      }
      let subscription = await store.findSubscription('email', input.target);
      if (!subscription) {
        subscription = newRecord(input, { status: 'pending', origin: 'public', secretSealed: null }, now);
        await store.createSubscription(subscription);
      }
      const mail =
        subscription.status === 'pending'
          ? confirmationMail(await deps.sender.linkFor(subscription.id, 'confirm'))
          : alreadySubscribedMail(await deps.sender.linkFor(subscription.id, 'manage'));
      const sent = await deps.mailer.send({ to: input.target, ...mail, headers: {} });
      if (!sent.ok) {
        deps.logger.warn('could not send a sign-up email', { subscription: subscription.id, error: sent.response });
        throw new ApiError(503, 'mail_unavailable', 'we could not send the confirmation email just now; please try again later');
      }
    },

    /** The subscription a confirm link stands for, without acting (a GET must not confirm: mail scanners follow links). */
    peek: (purpose: TokenPurpose, token: string) => redeem(purpose, token),

    async confirm(token: string): Promise<StoredSubscription> {
      const subscription = await redeem('confirm', token);
      await store.markTokenUsed(await hashToken('confirm', token), clock.now());
      if (subscription.status !== 'pending') return subscription;
      return (await store.updateSubscription(subscription.id, { status: 'active' }, clock.now())) ?? notFound();
    },

    /** RFC 8058 one-click: deletes the subscription at once; a second click finds no subscription (404). */
    async unsubscribe(token: string): Promise<StoredSubscription> {
      const subscription = await redeem('unsubscribe', token);
      await store.deleteSubscription(subscription.id);
      return subscription;
    },

    async manage(token: string, patch: { filters: SubscriptionFilters; timeZone: string }): Promise<StoredSubscription> {
      const subscription = await redeem('manage', token);
      return (await store.updateSubscription(subscription.id, patch, clock.now())) ?? notFound();
    },
  };

  /** A teams or discord URL authorizes posting: only its seal is kept, the target its host and fingerprint. */
  async function sealedTarget(input: Pick<NewSubscription, 'channel' | 'target'>): Promise<{ target: string; secretSealed: string } | null> {
    if (!hasSealedUrl(input.channel)) return null;
    return { target: await sealedUrlTarget(input.target), secretSealed: await deps.secrets.seal(input.target) };
  }

  function newRecord(input: NewSubscription, fields: Pick<StoredSubscription, 'status' | 'origin' | 'secretSealed'>, now: number): StoredSubscription {
    return {
      ...input,
      ...fields,
      id: deps.newId(),
      pausedReason: null,
      previousSecretSealed: null,
      previousSecretUntil: null,
      failingSince: null,
      lastSuccessAt: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  async function mustGet(id: string): Promise<StoredSubscription> {
    return (await store.getSubscription(id)) ?? notFound();
  }

  function confirmationMail(confirmUrl: string) {
    return {
      subject: 'Confirm your statuswatch subscription',
      text: `Someone (hopefully you) asked to get status updates at this address.\n\nConfirm: ${confirmUrl}\n\nThe link works for 7 days. If this was not you, ignore this email and nothing will be sent.\n`,
      html: `<p>Someone (hopefully you) asked to get status updates at this address.</p><p><a href="${escapeHtml(confirmUrl)}">Confirm your subscription</a></p><p>The link works for 7 days. If this was not you, ignore this email and nothing will be sent.</p>`,
    };
  }

  function alreadySubscribedMail(manageUrl: string) {
    return {
      subject: 'Your statuswatch subscription',
      text: `This address already gets status updates. To change what you receive or to unsubscribe: ${manageUrl}\n`,
      html: `<p>This address already gets status updates.</p><p><a href="${escapeHtml(manageUrl)}">Change what you receive, or unsubscribe</a></p>`,
    };
  }
}

function requireKey(input: NewSubscription): string {
  if (!input.key) throw new ApiError(400, 'invalid_request', `a ${input.channel} subscription needs its key`);
  return input.key;
}

function notFound(): never {
  throw new ApiError(404, 'subscription_not_found', 'no subscription with that id');
}

/** One made-up event of each type about one made-up incident, for test sends. */
export function sampleEvents(now: number): StatusEvent[] {
  const iso = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const incident: IncidentSummary = {
    id: 'test',
    title: 'Test: this is a test message from statuswatch',
    type: 'incident',
    status: 'active',
    url: '',
    services: ['Messaging'],
    date_created: iso,
    date_updated: iso,
  };
  const note = { key: `${iso}#0`, date_created: iso, body: '<p>This is a test note. No incident is going on.</p>' };
  const data: Record<EventType, EventData> = {
    'incident.created': { type: 'incident.created', incident, note },
    'incident.status_changed': { type: 'incident.status_changed', incident: { ...incident, status: 'resolved' }, from: 'active', to: 'resolved', note },
    'incident.note_added': { type: 'incident.note_added', incident, note },
    'incident.note_edited': { type: 'incident.note_edited', incident, note, from: 'This is a test note.', to: note.body },
    'incident.updated': { type: 'incident.updated', incident, changes: { title: { from: 'Test', to: incident.title } } },
    'monitor.blind': {
      type: 'monitor.blind',
      since: iso,
      last_error: 'Test: this is a test message from statuswatch; the feed is being read.',
      last_known: { ongoing: [], more: 0 },
    },
    'monitor.recovered': { type: 'monitor.recovered', since: iso, recovered_at: iso, blind_for_ms: 0 },
    'component.status_changed': {
      type: 'component.status_changed',
      source: { id: 'test', name: 'Test: an example status page' },
      component: { id: 'test', name: 'Messaging' },
      // A recovery: sent last, it closes an on-call tool's test alert, as the other tests leave it.
      from: 'major_outage',
      to: 'operational',
      from_state: 'Outage',
      to_state: 'Operational',
    },
  };
  return EVENT_TYPES.map((type) => ({
    id: `test.r1.${type.replace('incident.', '')}`,
    type,
    incidentId: type.startsWith('monitor.') ? '' : type.startsWith('component.') ? componentSubjectId('test', 'test') : 'test',
    revision: 1,
    occurredAt: now,
    detectedAt: now,
    backfill: false,
    data: data[type],
  }));
}
