/** Subscriptions as the store keeps them, and the port that keeps them. */
import type { Channel, Subscription, SubscriptionStatus } from '../subscription.ts';

/** A subscription as the store keeps it: the core's Subscription plus its bookkeeping. */
export type StoredSubscription = Subscription & {
  /**
   * The name of a target that is an id (an app subscription's conversation, "status-updates"), as
   * the vendor gave it when the subscription was made; null or absent when none was kept.
   */
  targetName?: string | null;
  origin: 'admin' | 'public';
  pausedReason: string | null;
  /** Sealed (secret-box.ts) signing secrets of a webhook: the current one, and during a rotation the previous one. */
  secretSealed: string | null;
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  failingSince: number | null;
  lastSuccessAt: number | null;
  createdAt: number;
  updatedAt: number;
};

export type SubscriptionPatch = Partial<
  Pick<
    StoredSubscription,
    'target' | 'filters' | 'timeZone' | 'status' | 'pausedReason' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretUntil' | 'failingSince'
  >
>;

/** `failing`: only those whose last attempt failed (failingSince set), as the admin overview lists them. */
export type SubscriptionFilter = { status?: SubscriptionStatus; channel?: Channel; failing?: boolean };

export interface SubscriptionStore {
  /** False, writing nothing, when an app subscription of the same conversation is there already. */
  createSubscription(subscription: StoredSubscription): Promise<boolean>;
  getSubscription(id: string): Promise<StoredSubscription | null>;
  /** Oldest first, after the subscription with id `afterId`. */
  listSubscriptions(filter: SubscriptionFilter, afterId: string | null, limit: number): Promise<StoredSubscription[]>;
  findSubscription(channel: Channel, target: string): Promise<StoredSubscription | null>;
  updateSubscription(id: string, patch: SubscriptionPatch, now: number): Promise<StoredSubscription | null>;
  /** Deletes it, its link tokens, and its deliveries not yet sent. */
  deleteSubscription(id: string): Promise<boolean>;
  /**
   * The subscriptions a poll's deliveries are planned for (status active). `versionSeen`: the
   * list's version a read of this poll found (PollOpening.subscriptionsVersion); a list the store
   * holds of that version is answered as it is, without a read.
   */
  activeSubscriptions(versionSeen?: string): Promise<readonly Subscription[]>;
}
