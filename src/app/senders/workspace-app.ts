/** The workspace app's channel ("app"): the incident's message in the conversation, edited and replied to (../workspace-app/message-sender.ts). */
import { deliveryMessageOf } from '../../core/delivery-message.ts';
import { refused, retry } from '../../core/send-outcome.ts';
import type { AppMessageSender } from '../workspace-app/message-sender.ts';
import { NOTHING_TO_SAY, type Sender } from './sender.ts';

/** `app`: null while the app is not configured; its deliveries are retried until it is. */
export function createWorkspaceAppChannel(deps: { app: AppMessageSender | null }): Sender {
  return async ({ subscription, events, deliveryKey }) => {
    const message = deliveryMessageOf(events);
    if (!message) return refused(NOTHING_TO_SAY);
    if (!deps.app) return retry('the workspace app is not configured (APP_CLIENT_ID and APP_CLIENT_SECRET are unset)');
    return deps.app.send(subscription, message, deliveryKey);
  };
}
