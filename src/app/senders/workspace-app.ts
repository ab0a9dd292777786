/** The workspace app's channel ("app"): the incident's message in the conversation, edited and replied to (../workspace-app/message-sender.ts). */
import { retry } from '../../core/send-outcome.ts';
import type { AppMessageSender } from '../workspace-app/message-sender.ts';
import { type Sender, sayingOneMessage } from './sender.ts';

/** `app`: null while the app is not configured; its deliveries are retried until it is. */
export function createWorkspaceAppChannel(deps: { app: AppMessageSender | null }): Sender {
  return sayingOneMessage(async ({ subscription, deliveryKey }, message) => {
    if (!deps.app) return retry('the workspace app is not configured (APP_CLIENT_ID and APP_CLIENT_SECRET are unset)');
    return deps.app.send(subscription, message, deliveryKey);
  });
}
