/** The PagerDuty channel: one Events API v2 event per delivery, on the incident's alert (core/pagerduty-message.ts). */
import { onCallAlertOf } from '../../core/oncall-alert.ts';
import { outcomeOfOnCallAttempt, type OnCallTool } from '../../core/oncall-outcome.ts';
import { isRoutingKeyRefusal, pagerDutyErrorText, pagerDutyEventOf } from '../../core/pagerduty-message.ts';
import type { WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { sent } from '../../core/send-outcome.ts';
import { type Sender, sayingOneMessage } from './sender.ts';
import { openToolKey, statusNow } from './tool-key.ts';

export type PagerDutySenderDeps = {
  webhooks: WebhookSender;
  secrets: SecretBox;
  publicUrl: string;
  incidentStatusNow: (incidentId: string) => Promise<string | null>;
  /** PAGERDUTY_EVENTS_URL. */
  pagerdutyEventsUrl: string;
};

/** What the attempt log says of a change after the end: done, with no call made. */
export const NOTHING_FOR_PAGERDUTY = 'not sent: the incident is over and its alert resolved; PagerDuty takes no later changes';

export const PAGERDUTY: OnCallTool = { name: 'PagerDuty', errorText: pagerDutyErrorText, refusesKey: isRoutingKeyRefusal };

export function createPagerDutyChannel(deps: PagerDutySenderDeps): Sender {
  return sayingOneMessage(async ({ subscription, mode }, message) => {
    const routingKey = await openToolKey(deps.secrets, subscription);
    const alert = onCallAlertOf(message, { publicUrl: deps.publicUrl, test: mode === 'test', statusNow: await statusNow(deps, message) });
    const event = pagerDutyEventOf(alert, routingKey, deps.publicUrl);
    if (!event) return sent(null, NOTHING_FOR_PAGERDUTY);
    const body = JSON.stringify(event);
    const attempt = await deps.webhooks.send({ url: deps.pagerdutyEventsUrl, headers: { 'content-type': 'application/json' }, body });
    return outcomeOfOnCallAttempt(attempt, PAGERDUTY);
  });
}
