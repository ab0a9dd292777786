import type { NoteRef } from '../events.ts';

/**
 * What the workspace app remembers of its messages: the root message of each incident
 * in each app subscription's conversation, the replies and monitor messages that may be in flight,
 * and conversations the vendor asked us to wait for.
 */

/** The root message of one incident in one subscription's conversation. */
export type AppRootRecord = {
  subscriptionId: string;
  incidentId: string;
  conversationId: string;
  /** Null while a post is in flight (or was, before a crash): the message may exist without our knowing its ts. */
  rootTs: string | null;
  /** The delivery that started the post. */
  rootKey: string;
  /** The incident revision the root shows. */
  revision: number;
  /** The newest note the root shows. */
  note: NoteRef | null;
  /** Deliveries whose reply was started (the newest few): a retry of one looks in the thread first. */
  startedReplies: string[];
  createdAt: number;
  updatedAt: number;
};

/** A monitor message (`monitor.blind`, `monitor.recovered`) one delivery posts in its subscription's conversation. */
export type AppMonitorPostRecord = {
  subscriptionId: string;
  deliveryKey: string;
  /** Null while the post is in flight (or was, before a crash): the message may exist without our knowing its ts. */
  ts: string | null;
  createdAt: number;
};

export type NewAppRoot = { subscriptionId: string; incidentId: string; conversationId: string; key: string; revision: number };

export interface AppMessageStore {
  findAppRoot(subscriptionId: string, incidentId: string): Promise<AppRootRecord | null>;
  /** Records that `key` is about to post the root; false when a row is there already (a root, or another post in flight). */
  beginAppRoot(root: NewAppRoot, now: number): Promise<boolean>;
  /** Hands an unfinished post from `fromKey` to `toKey` (its delivery stalled); false when the row moved on. */
  takeOverAppRoot(subscriptionId: string, incidentId: string, fromKey: string, toKey: string, now: number): Promise<boolean>;
  /**
   * The root `goneTs` was deleted in the conversation: the row starts over as a post by `key` in
   * flight (as beginAppRoot), keeping what the root showed. False when the row moved on (another
   * delivery started over first, or it names another root).
   */
  restartAppRoot(subscriptionId: string, incidentId: string, goneTs: string, key: string, now: number): Promise<boolean>;
  /**
   * The root's ts once known (kept if one is known already), and what it now shows: the revision is
   * never lowered, and an older revision does not replace the note.
   */
  recordAppRoot(subscriptionId: string, incidentId: string, shown: { ts: string; revision: number; note: NoteRef | null }, now: number): Promise<void>;
  /** Records, before posting, that delivery `key` posts its reply: if it comes back, it may have posted it. */
  startAppReply(subscriptionId: string, incidentId: string, key: string, now: number): Promise<void>;
  /**
   * Records that delivery `key` is about to post its monitor message; false when it began before
   * (a retry: it may have posted). Keeps only the subscription's newest few records.
   */
  beginAppMonitorPost(subscriptionId: string, key: string, now: number): Promise<boolean>;
  findAppMonitorPost(subscriptionId: string, key: string): Promise<AppMonitorPostRecord | null>;
  /** The monitor message's ts once known (kept if one is known already). */
  recordAppMonitorPost(subscriptionId: string, key: string, ts: string): Promise<void>;
  /** Every delivery to this conversation waits until `untilMs` (a later hold wins). */
  holdAppConversation(installationId: string, conversationId: string, untilMs: number): Promise<void>;
  /** Until when the conversation is held, or null when it is not. */
  appConversationHeldUntil(installationId: string, conversationId: string): Promise<number | null>;
}
