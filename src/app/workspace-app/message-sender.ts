/**
 * Sends one delivery to an app subscription's conversation: the first delivery of an
 * incident posts its root message, every later one edits the root to the incident as it stands
 * and replies in its thread with what changed.
 *
 * Crash safety, in three rules. (1) Before a root is posted, a row naming the posting delivery is
 * written (AppMessageStore.beginAppRoot); a delivery that finds that row without a ts looks in the
 * conversation's history (conversations.history with metadata, from the row's time on, bounded)
 * for the root it may have posted before posting one. So the history is read only after a crash
 * or a lost answer, never on the common path. (2) Before a reply is posted, its delivery key is
 * recorded; a delivery that finds its own key there looks in the thread (conversations.replies)
 * for a reply carrying its key in metadata. (3) An edit is repeated freely: it is idempotent, and
 * an older revision never edits the root back (the stored revision only rises). A monitor message
 * (monitor.blind, monitor.recovered) is posted once by rule (1), its row keyed by the delivery and
 * its metadata naming it (AppMessageStore.beginAppMonitorPost).
 */
import type { ChannelMessage } from '../../core/channel-message.ts';
import { renderComponentChannelMessage } from '../../core/component-message.ts';
import { renderMonitorChannelMessage } from '../../core/monitor-message.ts';
import {
  isMonitorPostOf,
  isReplyOf,
  isRootOf,
  monitorMetadata,
  nextRootView,
  renderAppReply,
  renderAppRoot,
  replyMetadata,
  rootMetadata,
  type AppRootView,
} from '../../core/workspace-app/message.ts';
import { WebApiError } from '../../core/errors.ts';
import { RETRY_AFTER_CAP_MS } from '../../core/retry-schedule.ts';
import type { NoteRef } from '../../core/events.ts';
import type { IncidentUpdate } from '../../core/notification-message.ts';
import { createSkipTally, logSkips } from '../../core/outside-records.ts';
import type { AppMessageStore, AppRootRecord, ChatHistoryPage, ChatMetadata, Clock, Logger, StoredSubscription, VendorChatApi } from '../../core/ports.ts';
import { parseAppTarget } from '../../core/subscription.ts';
import { InstallationUnavailableError, TokenBusyError, type AppTokens } from './tokens.ts';
import { failed, gone, heldUntil, sent, type SendOutcome } from '../../core/send-outcome.ts';
import type { DeliveryMessage } from '../../core/delivery-message.ts';

/** How long a broken or uninstalled installation's deliveries wait before they look again: a re-install is seen within it. */
const INSTALLATION_RECHECK_MS = 30_000;
/** A 429 without Retry-After still waits this long. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;
/** Another delivery's unfinished root post: waited for this long, then taken over (its delivery stalled). */
const ROOT_POST_STALE_MS = 120_000;
/** How long a delivery waits for another's root post in progress before it looks again. */
const ROOT_POST_WAIT_MS = 2_000;
/** The vendor's recommended page size ("100-200"). */
const HISTORY_PAGE_LIMIT = 200;
/** Pages one look reads at most: the vendor may send short pages, and a busy channel holds many messages. */
const HISTORY_PAGES_MAX = 10;
/** Our clock and the vendor's may differ: the history is read from this long before the row was written. */
const CLOCK_SKEW_MS = 60_000;

/** The vendor's answers to an edit, a reply or a thread read whose root message is no longer there. */
const ROOT_GONE = new Set(['message_not_found', 'thread_not_found']);

/** The vendor's answers that mean this conversation cannot take our messages until someone acts. */
const CONVERSATION_GONE: Readonly<Record<string, string>> = {
  channel_not_found: 'the conversation no longer exists (channel_not_found)',
  not_in_channel: 'the app is not a member of the conversation (not_in_channel): invite it, then resume',
  is_archived: 'the conversation is archived (is_archived): unarchive it, then resume',
};

export type AppMessageSenderDeps = {
  store: AppMessageStore;
  chat: VendorChatApi;
  tokens: AppTokens;
  clock: Clock;
  /** Where the history's messages the vendor sent malformed are reported (core/outside-records.ts). */
  logger: Logger;
  /** Where links in messages point (PUBLIC_URL). */
  publicUrl: string;
};

export type AppDelivery = DeliveryMessage;

export type AppMessageSender = {
  /** `key`: the delivery's key (fanout.ts), stable across its attempts. */
  send(subscription: StoredSubscription, delivery: AppDelivery, key: string): Promise<SendOutcome>;
};

/** A step could not know whether it may post: tried again later, never guessed. */
class UnsureError extends Error {
  override readonly name = 'UnsureError';
}

export function createAppMessageSender(deps: AppMessageSenderDeps): AppMessageSender {
  const { store, chat, tokens, clock } = deps;
  const context = { publicUrl: deps.publicUrl };

  /**
   * Pages of a history or thread, at most HISTORY_PAGES_MAX; the first message that matches, or null.
   * A message the vendor sent malformed is left out and logged: one broken message (anyone's) must
   * not stop every delivery to the conversation from finding its own.
   */
  async function anyMessage(
    list: 'conversations.history' | 'conversations.replies',
    read: (cursor: string | null) => Promise<ChatHistoryPage>,
    matches: (m: ChatHistoryPage['messages'][number]) => boolean,
  ) {
    const skips = createSkipTally();
    try {
      let cursor: string | null = null;
      for (let page = 0; page < HISTORY_PAGES_MAX; page++) {
        const answer = await read(cursor);
        skips.add(answer.skipped);
        const found = answer.messages.find(matches);
        if (found) return found;
        // Only the cursor says the end: a short page does not (spec, Pagination rules).
        if (answer.nextCursor === null) return null;
        cursor = answer.nextCursor;
      }
      throw new UnsureError(`looked through ${HISTORY_PAGES_MAX} pages without reaching the end`);
    } finally {
      logSkips(deps.logger, list, skips);
    }
  }

  /** The ts of our message in the conversation's history since a row written at `sinceMs`, or null. */
  async function findInHistory(token: string, conversation: string, sinceMs: number, matches: (metadata: ChatMetadata | null) => boolean) {
    const oldest = String(Math.max(0, Math.floor((sinceMs - CLOCK_SKEW_MS) / 1000)));
    const found = await anyMessage(
      'conversations.history',
      (cursor) => chat.history(token, conversation, { cursor, limit: HISTORY_PAGE_LIMIT, oldest }),
      (m) => matches(m.metadata),
    );
    return found?.ts ?? null;
  }

  function findRootTs(token: string, conversation: string, root: AppRootRecord): Promise<string | null> {
    return findInHistory(token, conversation, root.createdAt, (metadata) => isRootOf(metadata, root.incidentId));
  }

  /** `shown`: the note a deleted root showed, kept when this update brings none. */
  async function postRoot(
    token: string,
    subscription: StoredSubscription,
    conversation: string,
    update: IncidentUpdate,
    revision: number,
    shown: NoteRef | null = null,
  ) {
    const view: AppRootView = nextRootView(shown === null ? null : { incident: update.incident, note: shown, vendor: update.vendor }, update);
    const { ts } = await chat.postMessage(token, conversation, { ...renderAppRoot(view, context), metadata: rootMetadata(update.incidentId) });
    await store.recordAppRoot(subscription.id, update.incidentId, { ts, revision, note: view.note }, clock.now());
    return ok(`posted the root message ${ts}`);
  }

  /** The steps of one incident delivery with a token; a WebApiError is for the caller to read. */
  async function deliverIncident(token: string, subscription: StoredSubscription, conversation: string, update: IncidentUpdate, revision: number, key: string) {
    const incidentId = update.incidentId;
    let root = await store.findAppRoot(subscription.id, incidentId);
    if (!root) {
      const began = await store.beginAppRoot({ subscriptionId: subscription.id, incidentId, conversationId: conversation, key, revision }, clock.now());
      if (began) return postRoot(token, subscription, conversation, update, revision);
      root = await store.findAppRoot(subscription.id, incidentId);
      if (!root) throw new UnsureError('the root message row vanished');
    }
    let rootTs = root.rootTs;
    if (rootTs === null) {
      if (root.rootKey !== key) {
        // Another delivery is posting the root: wait for it, unless it stalled (then take over).
        const now = clock.now();
        if (now - root.updatedAt < ROOT_POST_STALE_MS) return heldUntil(now + ROOT_POST_WAIT_MS, false, 'another delivery is posting this incident’s message');
        if (!(await store.takeOverAppRoot(subscription.id, incidentId, root.rootKey, key, now))) throw new UnsureError('the root message row moved on');
        root = { ...root, rootKey: key };
      }
      // This delivery started the post before and never recorded its answer: it may exist.
      const ts = await findRootTs(token, conversation, root);
      if (ts === null) return postRoot(token, subscription, conversation, update, revision);
      await store.recordAppRoot(subscription.id, incidentId, { ts, revision: root.revision, note: root.note }, clock.now());
      rootTs = ts;
    }
    try {
      return await editAndReply(token, subscription, conversation, update, revision, key, root, rootTs);
    } catch (error) {
      if (!(error instanceof WebApiError) || !ROOT_GONE.has(error.code)) throw error;
      // Someone deleted the root (or the workspace's retention did): a new one starts the thread
      // over, showing the incident as it stands. Crash-safe as the first post: the row names this
      // delivery before it posts.
      if (!(await store.restartAppRoot(subscription.id, incidentId, rootTs, key, clock.now()))) throw new UnsureError('the root message row moved on');
      const posted = await postRoot(token, subscription, conversation, update, revision, root.note);
      return ok(`the root message ${rootTs} was deleted (${error.code}); ${posted.excerpt}`);
    }
  }

  async function editAndReply(
    token: string,
    subscription: StoredSubscription,
    conversation: string,
    update: IncidentUpdate,
    revision: number,
    key: string,
    root: AppRootRecord,
    rootTs: string,
  ): Promise<SendOutcome> {
    const incidentId = update.incidentId;
    const view = nextRootView({ incident: update.incident, note: root.note, vendor: update.vendor }, update);
    if (revision >= root.revision) await chat.updateMessage(token, conversation, rootTs, renderAppRoot(view, context));
    await store.recordAppRoot(subscription.id, incidentId, { ts: rootTs, revision, note: update.note }, clock.now());
    // The delivery that posted the root has nothing to add in the thread: the root says it.
    if (root.rootKey === key) return ok(`the root message ${rootTs} shows it`);
    if (root.startedReplies.includes(key)) {
      const found = await anyMessage(
        'conversations.replies',
        (cursor) => chat.replies(token, conversation, rootTs, { cursor, limit: HISTORY_PAGE_LIMIT }),
        (m) => isReplyOf(m.metadata, key),
      );
      if (found) return ok(`edited ${rootTs}; the reply ${found.ts} was posted before`);
    } else {
      await store.startAppReply(subscription.id, incidentId, key, clock.now());
    }
    const reply = await chat.postMessage(token, conversation, { ...renderAppReply(update), threadTs: rootTs, metadata: replyMetadata(incidentId, key) });
    return ok(`edited ${rootTs}; replied ${reply.ts}`);
  }

  return {
    async send(subscription, delivery, key) {
      const target = parseAppTarget(subscription.target);
      if (!target) return failed(`not an app subscription target: ${subscription.target}`, true);
      const { installationId, conversationId } = target;
      const conversationHeldUntilMs = await store.appConversationHeldUntil(installationId, conversationId);
      if (conversationHeldUntilMs !== null && conversationHeldUntilMs > clock.now())
        return heldUntil(conversationHeldUntilMs, false, 'the vendor rate-limited this conversation: waiting as it asked');
      try {
        return await tokens.withToken(installationId, (token) => {
          if (delivery.kind === 'monitor') return deliverOnce(token, subscription, conversationId, renderMonitorChannelMessage(delivery.data), key);
          if (delivery.kind === 'component')
            return deliverOnce(token, subscription, conversationId, renderComponentChannelMessage(delivery.data, context), key);
          return deliverIncident(token, subscription, conversationId, delivery.update, delivery.revision, key);
        });
      } catch (error) {
        return fromError(error, installationId, conversationId);
      }
    },
  };

  /**
   * A message of its own (a monitor event, a component's change), posted once: its row is written
   * before the post, and a retry that finds it looks in the history first.
   */
  async function deliverOnce(
    token: string,
    subscription: StoredSubscription,
    conversation: string,
    message: ChannelMessage,
    key: string,
  ): Promise<SendOutcome> {
    if (!(await store.beginAppMonitorPost(subscription.id, key, clock.now()))) {
      const started = await store.findAppMonitorPost(subscription.id, key);
      if (!started) throw new UnsureError('the monitor message row vanished');
      if (started.ts !== null) return ok(`posted ${started.ts} before`);
      const ts = await findInHistory(token, conversation, started.createdAt, (metadata) => isMonitorPostOf(metadata, key));
      if (ts !== null) {
        await store.recordAppMonitorPost(subscription.id, key, ts);
        return ok(`the message ${ts} was posted before`);
      }
    }
    const { ts } = await chat.postMessage(token, conversation, { text: message.text, blocks: message.blocks, metadata: monitorMetadata(key) });
    await store.recordAppMonitorPost(subscription.id, key, ts);
    return ok(`posted ${ts}`);
  }

  async function fromError(error: unknown, installationId: string, conversationId: string): Promise<SendOutcome> {
    const now = clock.now();
    if (error instanceof InstallationUnavailableError) {
      // Kept, not failed: the deliveries go out once the admin re-installs (the same team: active again).
      return heldUntil(now + INSTALLATION_RECHECK_MS, false, `the installation is ${error.standing}: waiting for a re-install`);
    }
    if (error instanceof TokenBusyError || error instanceof UnsureError) return failed(error.message, false);
    if (!(error instanceof WebApiError)) throw error;
    const said = `${error.method}: ${error.code}`;
    if (error.code === 'ratelimited') {
      // The whole conversation waits, in every process: its other deliveries would only be refused too.
      // Capped as every Retry-After is: an absurd one must not park the conversation for years.
      const until = now + Math.min(error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS, RETRY_AFTER_CAP_MS);
      await store.holdAppConversation(installationId, conversationId, until);
      return heldUntil(until, true, said, { status: 429 });
    }
    const goneReason = CONVERSATION_GONE[error.code];
    if (goneReason) return gone(said, goneReason);
    if (await tokens.reportVendorError(installationId, error.code)) {
      return heldUntil(now + INSTALLATION_RECHECK_MS, true, `${said}: the installation is broken, waiting for a re-install`);
    }
    return failed(said, !error.retryable);
  }
}

function ok(excerpt: string): SendOutcome {
  return sent(200, excerpt);
}
