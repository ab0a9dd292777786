/**
 * Sends one delivery through its subscription's channel (senders/), and makes the links messages
 * carry. The deliverer sends the outbox through it, and the admin's test send uses it too (mode
 * `test`), so a test shows what a real delivery would do.
 */
import type { AppMessageSender } from './workspace-app/message-sender.ts';
import { issueToken, type TokenPurpose } from '../core/confirmation-token.ts';
import type { Clock, Hashes, LinkTokenStore, Mailer, WebhookSender } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { PAGERDUTY_EVENTS_URL_DEFAULT } from '../core/pagerduty-message.ts';
import type { MessageSource } from '../core/notification-message.ts';
import { refused, type SendOutcome } from '../core/send-outcome.ts';
import { MAIN_FEED_SOURCE, sourceOfIncidentId } from '../core/statuspage/mapping.ts';
import { webCryptoHashes } from '../core/web-crypto-hashes.ts';
import type { GroupMail } from './group-mail.ts';
import type { DiscordMessageStore } from './senders/discord.ts';
import { createSenders } from './senders/index.ts';
import type { Send } from './senders/sender.ts';

export type ChannelSenderDeps = {
  /** Link tokens, and the Discord message of each incident (senders/discord.ts). */
  store: Pick<LinkTokenStore, 'saveToken'> & DiscordMessageStore;
  webhooks: WebhookSender;
  /** Null when no mail is configured (SMTP_URL or MAIL_API_TOKEN): email sends fail, permanently, with that reason. */
  mailer: Mailer | null;
  secrets: SecretBox;
  /** How a webhook's id and signature are hashed: the runtime's fastest; Web Crypto when absent. */
  hashes?: Hashes;
  clock: Clock;
  /** Where links in messages point (PUBLIC_URL). */
  publicUrl: string;
  sanitizeHtml: (html: string) => string;
  /** The workspace app's messages (workspace-app/message-sender.ts); null while the app is not configured. */
  app?: AppMessageSender | null;
  /** Sends a group subscription's mail to each member; absent, a group subscription's sends fail. */
  groupMail?: GroupMail | null;
  /** Where a group subscription's test goes (ADMIN_EMAIL), never to the group's members. */
  adminEmail?: string | null;
  /** PAGERDUTY_EVENTS_URL; PagerDuty's own when absent. */
  pagerdutyEventsUrl?: string;
  /** OPSGENIE_API_URL; absent or null, each region's own host. */
  opsgenieApiUrl?: string | null;
  /** The archive's status of an incident now (null: not archived): how an on-call sender tells a late delivery. */
  incidentStatusNow?: (incidentId: string) => Promise<string | null>;
  /** A source's name by its id (null: no such source now); absent, a source is named by its id. */
  sourceName?: (sourceId: string) => Promise<string | null>;
  /** The main feed's name among sources (mainFeedName); its messages name no vendor, its webhooks carry it. */
  mainFeedName?: string;
};

/** A delivery to send: where its events came from is the channel sender's to find. */
export type SendRequest = Omit<Send, 'source'>;

export type ChannelSender = {
  send(send: SendRequest): Promise<SendOutcome>;
  /** A fresh link carrying a token for `purpose`, stored as its hash. */
  linkFor(subscriptionId: string, purpose: TokenPurpose): Promise<string>;
};

/** Where each link token is redeemed (routes/subscribe-pages.tsx). */
const LINK_PATHS: Record<TokenPurpose, string> = { confirm: '/subscribe/confirm', unsubscribe: '/unsubscribe', manage: '/manage' };

export function createChannelSender(deps: ChannelSenderDeps): ChannelSender {
  async function linkFor(subscriptionId: string, purpose: TokenPurpose): Promise<string> {
    const { token, record } = await issueToken(purpose, deps.clock.now());
    await deps.store.saveToken({ ...record, subscriptionId });
    return `${deps.publicUrl}${LINK_PATHS[purpose]}?token=${token}`;
  }
  const { sourceName: _sourceName, mainFeedName: _mainFeedName, ...senderDeps } = deps;
  const senders = createSenders({
    ...senderDeps,
    linkFor,
    hashes: deps.hashes ?? webCryptoHashes,
    app: deps.app ?? null,
    groupMail: deps.groupMail ?? null,
    adminEmail: deps.adminEmail ?? null,
    pagerdutyEventsUrl: deps.pagerdutyEventsUrl ?? PAGERDUTY_EVENTS_URL_DEFAULT,
    opsgenieApiUrl: deps.opsgenieApiUrl ?? null,
    incidentStatusNow: deps.incidentStatusNow ?? (async () => null),
  });
  const sourceOf = sourceFinder(deps);
  return {
    linkFor,
    async send(send) {
      const first = send.events[0];
      if (!first) return refused('the events of this delivery are no longer in the archive');
      return senders[send.subscription.channel]({ ...send, source: await sourceOf(sourceOfIncidentId(first.incidentId)) });
    },
  };
}

/** Source names kept at most this long: a removed source's outbox rows name it by its id from then on. */
const SOURCE_NAME_MAX_AGE_MS = 60_000;
/** Names kept at once; more sources than this are read again (SOURCES_MAX is far below it). */
const SOURCE_NAMES_MAX = 1_000;

/**
 * A delivery's source by its id, its name read once a minute at most: one poll's deliveries to
 * many subscribers read it once. A source removed since is named by its id, never guessed.
 */
function sourceFinder(deps: Pick<ChannelSenderDeps, 'sourceName' | 'mainFeedName' | 'clock'>): (sourceId: string) => Promise<MessageSource> {
  const names = new Map<string, { name: string; readAt: number }>();
  return async (sourceId) => {
    if (sourceId === MAIN_FEED_SOURCE) return { id: sourceId, name: deps.mainFeedName ?? sourceId };
    const now = deps.clock.now();
    const kept = names.get(sourceId);
    if (kept && now - kept.readAt < SOURCE_NAME_MAX_AGE_MS) return { id: sourceId, name: kept.name };
    const name = (await deps.sourceName?.(sourceId)) ?? sourceId;
    if (names.size >= SOURCE_NAMES_MAX) names.clear();
    names.set(sourceId, { name, readAt: now });
    return { id: sourceId, name };
  };
}
