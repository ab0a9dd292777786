/**
 * Sends what the outbox holds: claims due deliveries with a lease, renders each for its channel
 * (signed webhook, team-chat message, email), sends it, and records the attempt and what follows
 * from it (done, retry at, dead; the subscription healthy, failing or paused) in one step.
 */
import { renderChannelMessage } from '../core/channel-message.ts';
import { issueToken, type TokenPurpose } from '../core/confirmation-token.ts';
import { decideOutcome, type AttemptResult } from '../core/delivery-outcome.ts';
import { renderEmail } from '../core/email-render.ts';
import { webhookMessageId } from '../core/fanout.ts';
import { groupForMessages } from '../core/notification-message.ts';
import type { AttemptToRecord, ClaimedDelivery, Clock, DeliveryAttemptRecord, Logger, Mailer, NotificationStore, StoredSubscription, WebhookSender } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { webhookHeaders } from '../core/webhook-signing.ts';
import { toWebhookPayload } from '../core/webhook-payload.ts';

/** Long enough for a webhook's 15 s timeout and a slow SMTP exchange, with margin. */
export const DELIVERY_LEASE_MS = 60_000;
const CLAIM_BATCH = 100;
/** Deliveries in flight at once; one subscription's deliveries still go one after another. */
const DEFAULT_CONCURRENCY = 16;
const EXCERPT_MAX_CHARS = 1024;
const OPENED_SECRETS_MAX = 50_000;

export type DelivererDeps = {
  store: NotificationStore;
  webhooks: WebhookSender;
  /** Null when SMTP_URL is unset: email deliveries end as dead with that reason. */
  mailer: Mailer | null;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  /** Where links in messages point (PUBLIC_URL). */
  publicUrl: string;
  sanitizeHtml: (html: string) => string;
  instanceId: string;
  /** Whether a claim holder is a process known to be gone: its claims are freed at once. */
  isHolderGone: (holder: string) => boolean;
  /** Told when a subscription is paused, besides the log (ADMIN_EMAIL). */
  adminEmail?: string;
  random?: () => number;
  concurrency?: number;
  /** Called once per attempt: metrics. */
  onAttempt?: (channel: string, outcome: 'done' | 'retry' | 'dead', latencyMs: number) => void;
};

export type DeliveryRound = { claimed: number; done: number; retried: number; dead: number };

export type Deliverer = {
  /** Claims and sends everything due now, in batches, until nothing is due. */
  deliverDue(): Promise<DeliveryRound>;
};

export function createDeliverer(deps: DelivererDeps): Deliverer {
  const { store, clock, logger } = deps;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;

  async function freeDeadHoldersClaims(): Promise<void> {
    for (const holder of await store.claimHolders()) {
      if (holder === deps.instanceId || !deps.isHolderGone(holder)) continue;
      const freed = await store.releaseClaims(holder);
      if (freed > 0) logger.warn('took over deliveries of a deliverer that died', { holder, deliveries: freed });
    }
  }

  // Group commit: the attempts that end while one commit is being prepared share it. A commit per
  // attempt was the deliverer's largest cost; a batch holds at most what was in flight, so a crash
  // re-sends no more than it would have anyway.
  let batch: { items: AttemptToRecord[]; done: Promise<boolean[]> } | null = null;
  function recordAttempt(item: AttemptToRecord): Promise<boolean> {
    if (!batch) {
      const items: AttemptToRecord[] = [];
      const done = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
        batch = null;
        return store.recordAttempts(deps.instanceId, items);
      });
      batch = { items, done };
    }
    const index = batch.items.push(item) - 1;
    return batch.done.then((recorded) => recorded[index] ?? false);
  }

  async function deliverOne(claimed: ClaimedDelivery, round: DeliveryRound): Promise<void> {
    const { delivery, subscription } = claimed;
    const attemptedAt = clock.now();
    const started = performance.now();
    let result: AttemptResult & { status: number | null; excerpt: string };
    try {
      result = await send(claimed);
    } catch (error) {
      // A bug or a broken secret must not leave the claim to expire silently: record it.
      result = { ok: false, permanent: false, gone: false, retryAfterMs: null, status: null, excerpt: '', error: `internal error: ${errorText(error)}` };
    }
    const durationMs = Math.round(performance.now() - started);
    const now = clock.now();
    const { outcome, health } = decideOutcome({
      result,
      attempt: delivery.attempts + 1,
      now,
      firstAttemptAt: delivery.createdAt,
      failingSince: subscription.failingSince,
      random,
    });
    const attempt: DeliveryAttemptRecord = {
      attemptedAt,
      ok: result.ok,
      status: result.status,
      durationMs,
      responseExcerpt: result.excerpt.slice(0, EXCERPT_MAX_CHARS),
      error: result.ok ? null : result.error,
    };
    const recorded = await recordAttempt({ deliveryId: delivery.id, attempt, outcome, health });
    if (!recorded) {
      logger.warn('delivery claim was lost before its attempt was recorded', { delivery: delivery.id });
      return;
    }
    deps.onAttempt?.(delivery.channel, outcome.kind, now - delivery.createdAt);
    if (outcome.kind === 'done') round.done++;
    else if (outcome.kind === 'retry') round.retried++;
    else round.dead++;
    const fields = { delivery: delivery.id, subscription: subscription.id, channel: delivery.channel, attempt: delivery.attempts + 1, status: result.status, durationMs };
    if (outcome.kind === 'retry') logger.info('delivery failed; will retry', { ...fields, error: outcome.error, retryAt: new Date(outcome.at).toISOString() });
    if (outcome.kind === 'dead') logger.warn('delivery given up', { ...fields, reason: outcome.reason });
    if (health.kind === 'paused' && subscription.status === 'active') await announcePause(subscription, health.reason);
  }

  async function send({ delivery, subscription, events }: ClaimedDelivery): Promise<AttemptResult & { status: number | null; excerpt: string }> {
    if (events.length === 0) return failure('the events of this delivery are no longer in the archive', true);
    if (subscription.channel === 'webhook') {
      const event = events[0]!;
      const body = JSON.stringify(toWebhookPayload(event));
      const headers = await webhookHeaders({
        id: await webhookMessageId(delivery.key),
        timestampSeconds: Math.floor(clock.now() / 1000),
        body,
        secrets: await signingSecrets(subscription),
      });
      return fromWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { ...headers }, body }));
    }
    const update = groupForMessages(events)[0];
    if (!update) return failure('nothing to say: every event of this delivery is backfill', true);
    if (subscription.channel === 'channel') {
      const body = JSON.stringify(renderChannelMessage(update, { publicUrl: deps.publicUrl }));
      return fromWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { 'content-type': 'application/json' }, body }));
    }
    if (!deps.mailer) return failure('email is not configured (SMTP_URL is unset)', true);
    const email = renderEmail(update, {
      publicUrl: deps.publicUrl,
      timeZone: subscription.timeZone,
      unsubscribeUrl: await linkFor(subscription.id, 'unsubscribe'),
      manageUrl: await linkFor(subscription.id, 'manage'),
      sanitizeHtml: deps.sanitizeHtml,
    });
    const sent = await deps.mailer.send({ to: subscription.target, ...email });
    if (sent.ok) return { ok: true, permanent: false, gone: false, retryAfterMs: null, status: 250, excerpt: sent.response, error: '' };
    const error = `SMTP ${sent.code ?? sent.kind}: ${sent.response}`;
    return {
      ok: false,
      permanent: !sent.retryable,
      // A 5xx for the recipient: the address is suppressed (the subscription paused) and says so.
      gone: sent.kind === 'recipient_rejected',
      goneReason: `the mail server refused the address: ${sent.response}`,
      retryAfterMs: null,
      status: sent.code,
      excerpt: sent.response,
      error,
    };
  }

  // Opened secrets by their sealed text: opening (AES-GCM through Web Crypto) cost a fifth of a
  // delivery. A rotation seals a new text, so a stale entry is never used; the bound keeps memory flat.
  const openedSecrets = new Map<string, string>();
  async function open(sealed: string): Promise<string> {
    let secret = openedSecrets.get(sealed);
    if (secret === undefined) {
      secret = await deps.secrets.open(sealed);
      if (openedSecrets.size >= OPENED_SECRETS_MAX) openedSecrets.clear();
      openedSecrets.set(sealed, secret);
    }
    return secret;
  }

  async function signingSecrets(subscription: StoredSubscription): Promise<string[]> {
    if (!subscription.secretSealed) throw new Error(`webhook subscription ${subscription.id} has no signing secret`);
    const secrets = [await open(subscription.secretSealed)];
    // During a rotation both sign, so receivers can switch over at their own pace.
    if (subscription.previousSecretSealed && (subscription.previousSecretUntil ?? 0) > clock.now()) {
      secrets.push(await open(subscription.previousSecretSealed));
    }
    return secrets;
  }

  async function linkFor(subscriptionId: string, purpose: TokenPurpose): Promise<string> {
    const { token, record } = await issueToken(purpose, clock.now());
    await store.saveToken({ ...record, subscriptionId });
    return `${deps.publicUrl}/${purpose}?token=${token}`;
  }

  async function announcePause(subscription: StoredSubscription, reason: string): Promise<void> {
    logger.warn('subscription paused', { subscription: subscription.id, channel: subscription.channel, target: subscription.target, reason });
    if (!deps.mailer || !deps.adminEmail) return;
    const text = [
      `statuswatch paused a ${subscription.channel} subscription: ${reason}.`,
      '',
      `Subscription: ${subscription.id}`,
      `Target: ${subscription.target}`,
      '',
      `Nothing more is sent to it until it is resumed: POST ${deps.publicUrl}/api/subscriptions/${subscription.id}/resume`,
    ].join('\n');
    const sent = await deps.mailer.send({ to: deps.adminEmail, subject: `[statuswatch] Subscription paused: ${subscription.channel}`, text, html: '', headers: {} });
    if (!sent.ok) logger.warn('could not tell the admin of a paused subscription', { error: sent.response });
  }

  return {
    async deliverDue() {
      const round: DeliveryRound = { claimed: 0, done: 0, retried: 0, dead: 0 };
      await freeDeadHoldersClaims();
      for (;;) {
        const claimed = await store.claimDueDeliveries(deps.instanceId, clock.now(), DELIVERY_LEASE_MS, CLAIM_BATCH);
        if (claimed.length === 0) return round;
        round.claimed += claimed.length;
        await runBySubscription(claimed, concurrency, (c) => deliverOne(c, round));
      }
    },
  };
}

/**
 * Runs the deliveries with at most `limit` at once, one subscription's deliveries in order (they
 * were claimed oldest first), so a receiver sees events in the order they happened.
 */
async function runBySubscription(claimed: ClaimedDelivery[], limit: number, run: (c: ClaimedDelivery) => Promise<void>): Promise<void> {
  const queues = new Map<string, ClaimedDelivery[]>();
  for (const c of claimed) {
    const queue = queues.get(c.subscription.id);
    if (queue) queue.push(c);
    else queues.set(c.subscription.id, [c]);
  }
  const pending = [...queues.values()];
  const worker = async () => {
    for (let queue = pending.shift(); queue; queue = pending.shift()) {
      for (const c of queue) await run(c);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, pending.length) }, worker));
}

function fromWebhookAttempt(attempt: Awaited<ReturnType<WebhookSender['send']>>): AttemptResult & { status: number | null; excerpt: string } {
  return {
    ok: attempt.ok,
    permanent: attempt.permanent,
    gone: attempt.gone,
    goneReason: 'the receiver answered 410 Gone',
    retryAfterMs: attempt.retryAfterMs,
    status: attempt.status,
    excerpt: attempt.responseExcerpt,
    error: attempt.error ?? (attempt.status !== null ? `HTTP ${attempt.status}` : 'no answer'),
  };
}

function failure(error: string, permanent: boolean): AttemptResult & { status: null; excerpt: string } {
  return { ok: false, permanent, gone: false, retryAfterMs: null, status: null, excerpt: '', error };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
