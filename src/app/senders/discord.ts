/**
 * Discord ("discord"): one message per incident in the channel of the subscription's webhook,
 * posted with `?wait=true` to learn its id and then edited in place (`PATCH …/messages/{id}`) as
 * the incident moves, so the channel ends with one message showing the incident as it stands.
 *
 * The message id is kept per subscription and incident in the workspace app's message rows
 * (AppMessageStore), with the same rules: a row naming the posting delivery is written before
 * the post, so another delivery of the same incident waits instead of posting a second message,
 * and a retry edits the message it finds recorded. An edit is repeated freely (it is idempotent)
 * and an older revision never edits the message back. A message someone deleted (404 Unknown
 * Message) is posted again, once, and the new id replaces the old.
 *
 * What cannot be made exact: a webhook cannot list a channel's messages, so a crash between
 * Discord's answer to the post and the record of its id leaves that message unknown, and the
 * retry posts the incident again.
 */
import type { NoteRef } from '../../core/events.ts';
import { renderDiscordComponentMessage, renderDiscordMessage, renderDiscordMonitorMessage, type DiscordMessage } from '../../core/discord-message.ts';
import type { IncidentUpdate } from '../../core/notification-message.ts';
import type { AppMessageStore, Clock, StoredSubscription, WebhookAttempt, WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { gone, heldUntil, refused, retry, sent, type SendOutcome } from '../../core/send-outcome.ts';
import { parseWellFormedJson } from '../../core/well-formed-text.ts';
import { openSealedUrl, toolErrorText } from './sealed-url.ts';
import { type Sender, sayingOneMessage } from './sender.ts';

/** What the message rows hold for a Discord subscription in place of a conversation id. */
export const DISCORD_CONVERSATION = 'discord';
/** Discord's JSON error code for a message that no longer exists. */
export const DISCORD_UNKNOWN_MESSAGE = 10008;
/** Discord's JSON error code for a webhook that no longer exists. */
export const DISCORD_UNKNOWN_WEBHOOK = 10015;
/** The message object Discord answers with: its embeds make it several KB; read whole to find its id. */
const MESSAGE_ANSWER_MAX_BYTES = 32 * 1024;
/** Another delivery's unfinished post: waited for this long, then taken over (its delivery stalled). */
const POST_STALE_MS = 120_000;
const POST_WAIT_MS = 2_000;

export type DiscordMessageStore = Pick<AppMessageStore, 'findAppRoot' | 'beginAppRoot' | 'takeOverAppRoot' | 'restartAppRoot' | 'recordAppRoot'>;

export type DiscordChannelDeps = { webhooks: WebhookSender; secrets: SecretBox; store: DiscordMessageStore; clock: Clock; publicUrl: string };

/** One call's answer, read as Discord means it. */
type Answer = { ok: true; messageId: string | null } | { ok: false; outcome: SendOutcome; unknownMessage: boolean };

export function createDiscordChannel(deps: DiscordChannelDeps): Sender {
  const { store, clock } = deps;
  const context = { publicUrl: deps.publicUrl };

  async function call(url: string, method: 'POST' | 'PATCH', message: DiscordMessage, subscription: StoredSubscription): Promise<Answer> {
    const attempt = await deps.webhooks.send({
      url,
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      excerptBytes: MESSAGE_ANSWER_MAX_BYTES,
    });
    return readAnswer(attempt, subscription);
  }

  /** Posts the incident's message and records its id; `gone`: the id of a deleted message it replaces. */
  async function post(url: string, subscription: StoredSubscription, update: IncidentUpdate, revision: number, note: NoteRef | null, said: string) {
    const answer = await call(postUrl(url), 'POST', renderDiscordMessage(update, note, context), subscription);
    if (!answer.ok) return answer.outcome;
    if (answer.messageId === null) return retry('Discord accepted the message but its answer named no message id');
    await store.recordAppRoot(subscription.id, update.incidentId, { ts: answer.messageId, revision, note }, clock.now());
    return sent(200, `${said}posted message ${answer.messageId}`);
  }

  async function deliverIncident(url: string, subscription: StoredSubscription, update: IncidentUpdate, revision: number, key: string): Promise<SendOutcome> {
    const { incidentId } = update;
    let row = await store.findAppRoot(subscription.id, incidentId);
    if (!row) {
      if (await store.beginAppRoot({ subscriptionId: subscription.id, incidentId, conversationId: DISCORD_CONVERSATION, key, revision }, clock.now()))
        return post(url, subscription, update, revision, update.note, '');
      row = await store.findAppRoot(subscription.id, incidentId);
      if (!row) return retry('the message row vanished');
    }
    if (row.rootTs === null) {
      if (row.rootKey !== key) {
        const now = clock.now();
        if (now - row.updatedAt < POST_STALE_MS) return heldUntil(now + POST_WAIT_MS, false, 'another delivery is posting this incident’s message');
        if (!(await store.takeOverAppRoot(subscription.id, incidentId, row.rootKey, key, now))) return retry('the message row moved on');
      }
      return post(url, subscription, update, revision, update.note ?? row.note, '');
    }
    const messageId = row.rootTs;
    const note = update.note ?? row.note;
    // An older delivery retried late never edits the message back.
    if (revision < row.revision) return sent(200, `message ${messageId} shows a newer revision`);
    const answer = await call(editUrl(url, messageId), 'PATCH', renderDiscordMessage(update, note, context), subscription);
    if (answer.ok) {
      await store.recordAppRoot(subscription.id, incidentId, { ts: messageId, revision, note }, clock.now());
      return sent(200, `edited message ${messageId}`);
    }
    if (!answer.unknownMessage) return answer.outcome;
    // Someone deleted the message: a new one shows the incident as it stands, posted once; the
    // row names this delivery before it posts, as the first post's does.
    if (!(await store.restartAppRoot(subscription.id, incidentId, messageId, key, clock.now()))) return retry('the message row moved on');
    return post(url, subscription, update, revision, note, `message ${messageId} was deleted (Unknown Message); `);
  }

  return sayingOneMessage(async ({ subscription, deliveryKey, mode }, message) => {
    const url = await openSealedUrl(deps.secrets, subscription);
    if (!url) return refused(`discord subscription ${subscription.id} has no sealed URL`);
    // A test, a monitor event and a component's change are one message each, posted and never edited.
    if (mode === 'test' || message.kind !== 'incident') {
      const body =
        message.kind === 'monitor'
          ? renderDiscordMonitorMessage(message.data)
          : message.kind === 'component'
            ? renderDiscordComponentMessage(message.data, context)
            : renderDiscordMessage(message.update, message.update.note, context);
      const answer = await call(postUrl(url), 'POST', body, subscription);
      return answer.ok ? sent(200, `posted message ${answer.messageId ?? '(no id)'}`) : answer.outcome;
    }
    return deliverIncident(url, subscription, message.update, message.revision, deliveryKey);
  });
}

/** The webhook's URL with `wait=true`: Discord then answers with the message object, id and all. */
function postUrl(webhookUrl: string): string {
  const url = new URL(webhookUrl);
  url.searchParams.set('wait', 'true');
  return url.href;
}

/** `{webhook}/messages/{id}`, keeping a `thread_id` the URL names (a webhook posting into a thread). */
function editUrl(webhookUrl: string, messageId: string): string {
  const url = new URL(webhookUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/messages/${encodeURIComponent(messageId)}`;
  url.searchParams.delete('wait');
  return url.href;
}

function readAnswer(attempt: WebhookAttempt, subscription: StoredSubscription): Answer {
  const answer = { status: attempt.status, excerpt: attempt.responseExcerpt.slice(0, 1024) };
  if (attempt.ok) return { ok: true, messageId: messageIdOf(attempt.responseExcerpt) };
  if (attempt.status === null)
    return {
      ok: false,
      unknownMessage: false,
      outcome: attempt.permanent ? refused(attempt.error ?? 'no answer', answer) : retry(attempt.error ?? 'no answer', answer),
    };
  const said = toolErrorText(attempt.status, attempt.responseExcerpt);
  const code = errorCodeOf(attempt.responseExcerpt);
  if (attempt.status === 404 && code === DISCORD_UNKNOWN_MESSAGE) return { ok: false, unknownMessage: true, outcome: refused(said, answer) };
  if (attempt.status === 404 || attempt.status === 401 || attempt.status === 410) {
    const reason = `the Discord webhook no longer takes messages (${said}): make a new one and update subscription ${subscription.id}`;
    return { ok: false, unknownMessage: false, outcome: gone(said, reason, answer) };
  }
  if (attempt.status === 429)
    return {
      ok: false,
      unknownMessage: false,
      outcome: retry(said, { ...answer, retryAfterMs: attempt.retryAfterMs ?? retryAfterOfBody(attempt.responseExcerpt) }),
    };
  if (attempt.status >= 500) return { ok: false, unknownMessage: false, outcome: retry(said, { ...answer, retryAfterMs: attempt.retryAfterMs }) };
  return { ok: false, unknownMessage: false, outcome: refused(said, answer) };
}

function parsed(excerpt: string): Record<string, unknown> | null {
  try {
    const value = parseWellFormedJson(excerpt);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Discord's ids are snowflakes: decimal digits, sent as strings. */
function messageIdOf(excerpt: string): string | null {
  const id = parsed(excerpt)?.id;
  return typeof id === 'string' && /^\d{1,25}$/.test(id) ? id : null;
}

function errorCodeOf(excerpt: string): number | null {
  const code = parsed(excerpt)?.code;
  return typeof code === 'number' ? code : null;
}

/** A 429's body says `retry_after` in seconds (a fraction allowed) when no Retry-After header came. */
function retryAfterOfBody(excerpt: string): number | null {
  const seconds = parsed(excerpt)?.retry_after;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : null;
}
