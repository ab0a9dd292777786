/** A group subscription's live mail: one mail to each receiving member, in the member's own time zone (group-mail.ts). */
import { deliveryMessageOf, renderDeliveryEmail } from '../../core/delivery-message.ts';
import { refused } from '../../core/send-outcome.ts';
import type { GroupMail } from '../group-mail.ts';
import { NOTHING_TO_SAY, type Sender } from './sender.ts';

export function createGroupEmailChannel(deps: { groupMail: GroupMail }): Sender {
  return async ({ subscription, events, deliveryKey, alertAtMs }) => {
    const message = deliveryMessageOf(events);
    if (!message) return refused(NOTHING_TO_SAY);
    return deps.groupMail.send(subscription, (context) => renderDeliveryEmail(message, context), { deliveryKey, alertAtMs });
  };
}
