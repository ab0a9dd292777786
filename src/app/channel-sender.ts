/**
 * Renders events for a subscription's channel and sends them: one signed webhook request, one
 * team-chat message, or one email with fresh unsubscribe and manage links. The deliverer sends
 * the outbox through it, and the admin's test send uses it too, so a test shows what a real
 * delivery would do.
 */
import type { AppMessageSender } from './app-message-sender.ts';
import { renderChannelMessage } from '../core/channel-message.ts';
import { issueToken, type TokenPurpose } from '../core/confirmation-token.ts';
import type { AttemptResult } from '../core/delivery-outcome.ts';
import { renderEmail, type EmailContext } from '../core/email-render.ts';
import { isMonitorEvent, type StatusEvent } from '../core/events.ts';
import { renderMonitorChannelMessage, renderMonitorEmail } from '../core/monitor-message.ts';
import { groupForMessages } from '../core/notification-message.ts';
import type { Clock, Mailer, NotificationStore, StoredSubscription, WebhookAttempt, WebhookSender } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { webhookHeaders } from '../core/webhook-signing.ts';
import { webhookPayloadOf } from '../core/webhook-payload.ts';
import { groupIdOfTarget } from '../core/scim-group.ts';
import type { GroupMail } from './group-mail.ts';

const OPENED_SECRETS_MAX = 50_000;

export type ChannelSenderDeps = {
  store: Pick<NotificationStore, 'saveToken'>;
  webhooks: WebhookSender;
  /** Null when no mail is configured (SMTP_URL or MAIL_API_TOKEN): email sends fail, permanently, with that reason. */
  mailer: Mailer | null;
  secrets: SecretBox;
  clock: Clock;
  /** Where links in messages point (PUBLIC_URL). */
  publicUrl: string;
  sanitizeHtml: (html: string) => string;
  /** The workspace app's messages (app-message-sender.ts); null while the app is not configured. */
  app?: AppMessageSender | null;
  /** Sends a group subscription's mail to each member (issue 11); absent, a group subscription's sends fail. */
  groupMail?: GroupMail | null;
};

/** How a send went, as the deliverer's decision and the attempt log need it. */
export type SendResult = AttemptResult & { status: number | null; excerpt: string };

export type SendOptions = {
  /** The webhook-id; asked for only when the channel is a webhook. */
  messageId: () => Promise<string>;
  /** Put before an email's subject ("[Test] "). */
  subjectPrefix?: string;
  /** The delivery's key, stable across its attempts (the app finds its own messages by it); a test send has none. */
  deliveryKey?: string;
  /** A test of a group subscription: mailed to this address (the admin's), never to the group's members. */
  groupTestTo?: string;
  /** When the delivery was written: how long a group alert has waited for its group's sync. */
  alertAtMs?: number;
};

export type ChannelSender = {
  /** The events of one delivery: one event for a webhook, one incident's events for the others. */
  send(subscription: StoredSubscription, events: readonly StatusEvent[], options: SendOptions): Promise<SendResult>;
  /** A fresh link carrying a token for `purpose`, stored as its hash. */
  linkFor(subscriptionId: string, purpose: TokenPurpose): Promise<string>;
};

/** Where each link token is redeemed (routes/subscribe-pages.tsx). */
const LINK_PATHS: Record<TokenPurpose, string> = { confirm: '/subscribe/confirm', unsubscribe: '/unsubscribe', manage: '/manage' };

export function createChannelSender(deps: ChannelSenderDeps): ChannelSender {
  const { clock } = deps;
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
    await deps.store.saveToken({ ...record, subscriptionId });
    return `${deps.publicUrl}${LINK_PATHS[purpose]}?token=${token}`;
  }

  return {
    linkFor,
    async send(subscription, events, options) {
      if (events.length === 0) return failure('the events of this delivery are no longer in the archive', true);
      if (subscription.channel === 'webhook') {
        const body = JSON.stringify(webhookPayloadOf(events[0]!));
        const headers = await webhookHeaders({
          id: await options.messageId(),
          timestampSeconds: Math.floor(clock.now() / 1000),
          body,
          secrets: await signingSecrets(subscription),
        });
        return fromWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { ...headers }, body }));
      }
      // A monitor event is alone in its delivery: it concerns no incident, so nothing groups with it.
      const first = events[0]!;
      const monitor = isMonitorEvent(first) ? first.data : null;
      const update = monitor ? null : groupForMessages(events)[0];
      if (!monitor && !update) return failure('nothing to say: every event of this delivery is backfill', true);
      if (subscription.channel === 'app') {
        if (!deps.app) return failure('the workspace app is not configured (APP_CLIENT_ID and APP_CLIENT_SECRET are unset)', false);
        const revision = Math.max(...events.map((e) => e.revision));
        const delivery = monitor ? { kind: 'monitor' as const, data: monitor } : { kind: 'incident' as const, update: update!, revision };
        return deps.app.send(subscription, delivery, options.deliveryKey ?? `test.${crypto.randomUUID()}`);
      }
      if (subscription.channel === 'channel') {
        const message = monitor ? renderMonitorChannelMessage(monitor) : renderChannelMessage(update!, { publicUrl: deps.publicUrl });
        const body = JSON.stringify(message);
        return fromWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { 'content-type': 'application/json' }, body }));
      }
      if (!deps.mailer) return failure('email is not configured (neither SMTP_URL nor MAIL_API_TOKEN is set)', true);
      const render = (ctx: EmailContext) => (monitor ? renderMonitorEmail(monitor, ctx) : renderEmail(update!, ctx));
      const group = groupIdOfTarget(subscription.target) !== null;
      if (group && options.groupTestTo === undefined) {
        if (!deps.groupMail) return failure('group subscriptions need SECRET_KEY and the SCIM directory (SCIM_TOKEN)', false);
        return deps.groupMail.send(subscription, render, options);
      }
      // The admin's copy of a group's mail links to the subscription's admin page: the test mails
      // no member, and no link in it can unsubscribe the group.
      const adminPage = `${deps.publicUrl}/admin/subscriptions/${encodeURIComponent(subscription.id)}`;
      const email = render({
        publicUrl: deps.publicUrl,
        timeZone: subscription.timeZone,
        unsubscribeUrl: group ? adminPage : await linkFor(subscription.id, 'unsubscribe'),
        manageUrl: group ? adminPage : await linkFor(subscription.id, 'manage'),
        sanitizeHtml: deps.sanitizeHtml,
      });
      const to = options.groupTestTo ?? subscription.target;
      const sent = await deps.mailer.send({ to, ...email, subject: (options.subjectPrefix ?? '') + email.subject });
      if (sent.ok) return { ok: true, permanent: false, gone: false, retryAfterMs: null, status: 250, excerpt: sent.response, error: '' };
      return {
        ok: false,
        permanent: !sent.retryable,
        // A 5xx for the recipient: the address is suppressed (the subscription paused) and says so.
        gone: sent.kind === 'recipient_rejected',
        goneReason: `the mail server refused the address: ${sent.response}`,
        retryAfterMs: null,
        status: sent.code,
        excerpt: sent.response,
        error: `SMTP ${sent.code ?? sent.kind}: ${sent.response}`,
      };
    },
  };
}

function fromWebhookAttempt(attempt: WebhookAttempt): SendResult {
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

function failure(error: string, permanent: boolean): SendResult {
  return { ok: false, permanent, gone: false, retryAfterMs: null, status: null, excerpt: '', error };
}
