/** A group subscription's live mail: one mail to each receiving member, in the member's own time zone (group-mail.ts). */
import { renderDeliveryEmail } from '../../core/delivery-message.ts';
import type { GroupMail } from '../group-mail.ts';
import type { MessageSender } from './sender.ts';

export function createGroupEmailChannel(deps: { groupMail: GroupMail }): MessageSender {
  return ({ subscription, deliveryKey, alertAtMs }, message) =>
    deps.groupMail.send(subscription, (context) => renderDeliveryEmail(message, context), { deliveryKey, alertAtMs });
}
