/**
 * Sends what the outbox holds: claims due deliveries with a lease, sends each through its
 * channel (channel-sender.ts), and records the attempt and what follows
 * from it (done, retry at, dead; the subscription healthy, failing or paused) in one step.
 */
import { attemptRecordOf, decideOutcome } from '../core/delivery-outcome.ts';
import type { AttemptToRecord, ClaimedDelivery, Clock, Logger, Mailer, OutboxStore, StoredSubscription, SubscriptionHealthChange } from '../core/ports.ts';
import { retry, type SendOutcome } from '../core/send-outcome.ts';
import type { Channel } from '../core/subscription.ts';
import { createPauseNotice, type PausedSubscriptionTitle } from './admin-notice.ts';
import type { ChannelSender } from './channel-sender.ts';
import { createSlots } from './concurrency.ts';
import { yieldToEventLoop } from './event-loop-slices.ts';

/**
 * Long enough for a webhook's 15 s timeout and a slow SMTP exchange, with margin. A send starts
 * only while at least half the lease is left (the claim is renewed first otherwise), so the lease
 * must be at least twice the longest send.
 */
export const DELIVERY_LEASE_MS = 60_000;
const CLAIM_BATCH = 100;
/**
 * Deliveries in flight at once; one subscription's deliveries still go one after another. A send
 * mostly waits on a receiver far away, so a round lasts about its deliveries over this, times a
 * receiver's answer time: 1,000 subscribers answering in 200 ms take 12.5 s at 16 in flight and
 * about 3 s at 64, and a few slow receivers hold a smaller share of the slots. The attempts that
 * end together share one commit, so more in flight also means fewer commits. A kill re-sends at
 * most this many deliveries: those in flight.
 */
export const DEFAULT_DELIVERY_CONCURRENCY = 64;
const EXCERPT_MAX_CHARS = 1024;

export type DelivererDeps = {
  store: Pick<OutboxStore, 'claimDueDeliveries' | 'renewClaims' | 'recordAttempts' | 'claimHolders' | 'releaseClaims'>;
  sender: ChannelSender;
  /**
   * What the email channel sends through, and the admin's pause notice; null when no mail is set
   * up. A pooled one bounds the email deliveries in flight (Mailer.sendsAtOnce).
   */
  mailer: Mailer | null;
  clock: Clock;
  logger: Logger;
  /** Where the pause notice's resume link points (PUBLIC_URL). */
  publicUrl: string;
  instanceId: string;
  /** Whether a claim holder is a process known to be gone: its claims are freed at once. */
  isHolderGone: (holder: string) => boolean;
  /** How long a claim lasts; DELIVERY_LEASE_MS by default. A holder that died frees it by then. */
  claimLeaseMs?: number;
  /** Told when a subscription is paused, besides the log (ADMIN_EMAIL). */
  adminEmail?: string;
  /** How the pause notice names the subscription; its channel when absent. */
  titleOf?: PausedSubscriptionTitle;
  random?: () => number;
  /** Deliveries in flight at once; DEFAULT_DELIVERY_CONCURRENCY by default. */
  concurrency?: number;
  /**
   * Most deliveries one round claims; default unbounded (Node: a round sends all that is due).
   * A Worker bounds it so one invocation stays inside its subrequest limit; what is left is
   * still due, for the next round.
   */
  maxClaimsPerRound?: number;
  /**
   * Most claim renewals one round makes (each a store round trip); default unbounded. Past it,
   * deliveries whose claim would not outlast their send are left for a later round.
   */
  maxRenewalsPerRound?: number;
  /** Called once per attempt: metrics. */
  onAttempt?: (channel: string, outcome: 'done' | 'retry' | 'dead', latencyMs: number) => void;
};

export type DeliveryRound = { claimed: number; done: number; retried: number; dead: number };

/**
 * One claim as its deliverer knows it: the deliverer set the lease itself, so it knows without a
 * round trip how long the claim lasts. `waiting` holds the deliveries not yet started and still held.
 */
type HeldClaim = {
  untilMs: number;
  waiting: Set<number>;
  renewal: Promise<void> | null;
  budget: { renewalsLeft: number };
  /**
   * Each subscription's health as this claim's recorded attempts left it: a later delivery of the
   * same subscription in the claim decides from it, not from what the claim read before them.
   */
  health: Map<string, KnownHealth>;
};

type KnownHealth = Pick<StoredSubscription, 'failingSince' | 'lastSuccessAt'>;

type SentAttempt = { result: SendOutcome; attemptedAt: number; durationMs: number };

export type Deliverer = {
  /** Claims and sends everything due now (at most maxClaimsPerRound), in batches, until nothing is due. */
  deliverDue(): Promise<DeliveryRound>;
};

export function createDeliverer(deps: DelivererDeps): Deliverer {
  const { store, clock, logger } = deps;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY;
  const maxClaimsPerRound = deps.maxClaimsPerRound ?? Infinity;
  const maxRenewalsPerRound = deps.maxRenewalsPerRound ?? Infinity;
  const claimLeaseMs = deps.claimLeaseMs ?? DELIVERY_LEASE_MS;
  const announcePause = createPauseNotice(deps);
  // Email goes out through deps.mailer. A pooled SMTP mailer queues the mails past its connections
  // itself; here they wait for a slot before their claim is checked instead, so time spent in that
  // queue does not eat into the lease their send needs (renewed once half of it is gone).
  const channelSlots = new Map<Channel, ReturnType<typeof createSlots>>();
  if (deps.mailer?.sendsAtOnce) channelSlots.set('email', createSlots(deps.mailer.sendsAtOnce));

  async function freeDeadHoldersClaims(): Promise<void> {
    for (const holder of await store.claimHolders()) {
      if (holder === deps.instanceId || !deps.isHolderGone(holder)) continue;
      const freed = await store.releaseClaims(holder);
      if (freed > 0) logger.warn('took over deliveries of a deliverer that died', { holder, deliveries: freed });
    }
  }

  // Group commit: the attempts that end while one commit is being prepared share it. A commit per
  // attempt was the deliverer's largest cost; a batch holds at most what was in flight, so a crash
  // re-sends no more than it would have anyway. The batch closes after one turn of the event loop
  // (a runtime-neutral yield), which lets every send whose response has arrived join it.
  let batch: { items: AttemptToRecord[]; done: Promise<boolean[]> } | null = null;
  function recordAttempt(item: AttemptToRecord): Promise<boolean> {
    if (!batch) {
      const items: AttemptToRecord[] = [];
      const done = yieldToEventLoop().then(() => {
        batch = null;
        return store.recordAttempts(deps.instanceId, items);
      });
      batch = { items, done };
    }
    const index = batch.items.push(item) - 1;
    return batch.done.then((recorded) => recorded[index] ?? false);
  }

  // A claim's deliveries wait their turn (64 at once, one subscription's one after another): with
  // slow receivers the last of them would start after the lease ran out, when another deliverer
  // may have claimed and sent them. So a delivery starts only while its claim outlasts the longest
  // send (half the lease is left); when less is left, the claim of every delivery still waiting is
  // renewed in one statement, and those whose claim had already run out are left to whoever took them.
  async function mayStart(claim: HeldClaim, deliveryId: number): Promise<boolean> {
    if (clock.now() + claimLeaseMs / 2 > claim.untilMs) {
      claim.renewal ??= renew(claim);
      await claim.renewal;
    }
    return claim.waiting.delete(deliveryId);
  }

  async function renew(claim: HeldClaim): Promise<void> {
    const now = clock.now();
    const ids = [...claim.waiting];
    const kept = new Set(await renewedOf(claim, ids, now));
    const lost = ids.filter((id) => !kept.has(id));
    for (const id of lost) claim.waiting.delete(id);
    claim.untilMs = now + claimLeaseMs;
    claim.renewal = null;
  }

  /** The ids whose claims now last until `now + claimLeaseMs`; the others are not sent by this round. */
  async function renewedOf(claim: HeldClaim, ids: number[], now: number): Promise<number[]> {
    if (claim.budget.renewalsLeft <= 0) {
      logger.info('the round has made all its claim renewals; the rest is left for a later round', { deliveries: ids.length });
      return [];
    }
    claim.budget.renewalsLeft--;
    try {
      const renewed = await store.renewClaims(deps.instanceId, ids, now, claimLeaseMs);
      if (renewed.length < ids.length) {
        logger.warn('delivery claims ran out before their turn; left to whoever holds them', { deliveries: ids.length - renewed.length });
      }
      return renewed;
    } catch (error) {
      // Unconfirmed, a claim may be another's by the time of the send: none of them is sent now;
      // their claims run out and a later round takes them.
      logger.warn('could not renew delivery claims; left for a later round', { deliveries: ids.length, error: errorText(error) });
      return [];
    }
  }

  /** The send of a delivery still held, once its channel has a slot for it; null when its claim was lost meanwhile. */
  async function sendInTurn(claimed: ClaimedDelivery, claim: HeldClaim): Promise<SentAttempt | null> {
    const slots = channelSlots.get(claimed.delivery.channel);
    return slots ? slots.run(() => sendIfHeld(claimed, claim)) : sendIfHeld(claimed, claim);
  }

  async function sendIfHeld(claimed: ClaimedDelivery, claim: HeldClaim): Promise<SentAttempt | null> {
    const { delivery, subscription } = claimed;
    if (!(await mayStart(claim, delivery.id))) return null;
    const attemptedAt = clock.now();
    const started = performance.now();
    let result: SendOutcome;
    try {
      result = await deps.sender.send({ subscription, events: claimed.events, deliveryKey: delivery.key, mode: 'live', alertAtMs: delivery.createdAt });
    } catch (error) {
      // A bug or a broken secret must not leave the claim to expire silently: record it.
      result = retry(`internal error: ${errorText(error)}`);
    }
    return { result, attemptedAt, durationMs: Math.round(performance.now() - started) };
  }

  async function deliverOne(claimed: ClaimedDelivery, claim: HeldClaim, round: DeliveryRound): Promise<void> {
    const { delivery, subscription } = claimed;
    const sent = await sendInTurn(claimed, claim);
    if (!sent) return;
    const { result, attemptedAt, durationMs } = sent;
    const now = clock.now();
    const known = claim.health.get(subscription.id) ?? subscription;
    const { outcome, health } = decideOutcome({
      result,
      attempt: delivery.attempts + 1,
      now,
      firstAttemptAt: delivery.createdAt,
      failingSince: known.failingSince,
      lastSuccessAt: known.lastSuccessAt,
      random,
    });
    const attempt = attemptRecordOf(result, attemptedAt, durationMs, EXCERPT_MAX_CHARS);
    const recorded = await recordAttempt({ deliveryId: delivery.id, attempt, outcome, health });
    if (!recorded) {
      logger.warn('delivery claim was lost before its attempt was recorded', { delivery: delivery.id });
      return;
    }
    claim.health.set(subscription.id, healthAfter(known, health, attemptedAt, attemptedAt + durationMs));
    deps.onAttempt?.(delivery.channel, outcome.kind === 'held' ? 'retry' : outcome.kind, now - delivery.createdAt);
    if (outcome.kind === 'done') round.done++;
    else if (outcome.kind === 'retry' || outcome.kind === 'held') round.retried++;
    else round.dead++;
    const fields = {
      delivery: delivery.id,
      subscription: subscription.id,
      channel: delivery.channel,
      attempt: delivery.attempts + 1,
      status: result.status,
      durationMs,
    };
    if (outcome.kind === 'retry') logger.info('delivery failed; will retry', { ...fields, error: outcome.error, retryAt: new Date(outcome.at).toISOString() });
    // A hold known beforehand (a broken installation, a held conversation) comes back every 30 s
    // until it ends: at info level it would write a line per delivery every 30 s for as long.
    if (outcome.kind === 'held') {
      const held = { ...fields, reason: outcome.error, until: new Date(outcome.at).toISOString() };
      if (outcome.logged) logger.info('delivery held', held);
      else logger.debug('delivery held', held);
    }
    if (outcome.kind === 'dead') logger.warn('delivery given up', { ...fields, reason: outcome.reason });
    if (health.kind === 'paused' && subscription.status === 'active') await announcePause(subscription, health.reason);
  }

  return {
    async deliverDue() {
      const round: DeliveryRound = { claimed: 0, done: 0, retried: 0, dead: 0 };
      const budget = { renewalsLeft: maxRenewalsPerRound };
      await freeDeadHoldersClaims();
      for (;;) {
        const limit = Math.min(CLAIM_BATCH, maxClaimsPerRound - round.claimed);
        if (limit <= 0) return round;
        const claimedAt = clock.now();
        const claimed = await store.claimDueDeliveries(deps.instanceId, claimedAt, claimLeaseMs, limit);
        if (claimed.length === 0) return round;
        round.claimed += claimed.length;
        const claim: HeldClaim = {
          untilMs: claimedAt + claimLeaseMs,
          waiting: new Set(claimed.map((c) => c.delivery.id)),
          renewal: null,
          budget,
          health: new Map(),
        };
        await runBySubscription(claimed, concurrency, (c) => deliverOne(c, claim, round));
      }
    },
  };
}

/**
 * Runs the deliveries with at most `limit` at once, one subscription's deliveries in order (they
 * were claimed oldest first), so a receiver sees events in the order they happened. A sender goes
 * on once the attempt it made is on record: a subscription's next delivery is decided from the
 * health the last one left. (Letting a sender go on to another subscription while its attempt was
 * committed kept more in flight, 13 on average instead of 8.5, but cost about 7 ms of CPU per
 * 1,000 deliveries and saved no time on a busy machine.)
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

/** A subscription's health once `change` is on record, as the store writes it (sqlite-outbox.ts). */
function healthAfter(known: KnownHealth, change: SubscriptionHealthChange, attemptedAt: number, finishedAt: number): KnownHealth {
  if (change.kind === 'succeeded') return { failingSince: null, lastSuccessAt: finishedAt };
  if (change.kind === 'unchanged') return known;
  return { failingSince: known.failingSince ?? attemptedAt, lastSuccessAt: known.lastSuccessAt };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
