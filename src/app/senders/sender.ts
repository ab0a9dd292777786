/** What every channel's sender takes and gives back: one module per channel implements it (index.ts lists them). */
import { deliveryMessageOf, type DeliveryMessage } from '../../core/delivery-message.ts';
import type { MessageSource } from '../../core/notification-message.ts';
import type { StatusEvent } from '../../core/events.ts';
import type { StoredSubscription } from '../../core/ports.ts';
import { refused, type SendOutcome } from '../../core/send-outcome.ts';
import type { Channel } from '../../core/subscription.ts';

/** `live`: a delivery from the outbox. `test`: the admin's test send, marked as one and never sent to a group's members. */
export type SendMode = 'live' | 'test';

export type Send = {
  subscription: StoredSubscription;
  /** One event for a webhook, one incident's events (or one monitor event) for the other channels; never empty. */
  events: readonly StatusEvent[];
  /** The delivery's key (fanout.ts), stable across its attempts: what a channel keys its own records and ids by. A test send has a fresh one. */
  deliveryKey: string;
  mode: SendMode;
  /** When the delivery was written: how long a group alert has waited for its group's sync. Now, when absent. */
  alertAtMs?: number;
  /**
   * Where the events came from: messages name a source's page, webhooks carry it. The channel
   * sender always finds it (channel-sender.ts); absent only where a sender is called alone, for
   * the main feed.
   */
  source?: MessageSource;
};

export type Sender = (send: Send) => Promise<SendOutcome>;

/** One sender per channel: a channel without one does not compile. */
export type Senders = Readonly<Record<Channel, Sender>>;

/** A delivery whose events are all backfill: history recorded while seeding, never news. */
export const NOTHING_TO_SAY = 'nothing to say: every event of this delivery is backfill';

/** A channel that says one message per delivery, given the message its events make. */
export type MessageSender = (send: Send, message: DeliveryMessage) => Promise<SendOutcome>;

/** The Sender of such a channel: the events' message worked out once, a delivery with none refused. */
export function sayingOneMessage(sendMessage: MessageSender): Sender {
  return async (send) => {
    const message = deliveryMessageOf(send.events, send.source ?? null);
    return message ? sendMessage(send, message) : refused(NOTHING_TO_SAY);
  };
}
