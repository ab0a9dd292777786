/** The Opsgenie channel: the incident's alert created, noted and closed through the Alert API (core/opsgenie-message.ts). */
import { onCallAlertOf } from '../../core/oncall-alert.ts';
import { outcomeOfOnCallAttempt, type OnCallTool } from '../../core/oncall-outcome.ts';
import { OPSGENIE_API_URL_DEFAULTS, opsgenieErrorText, opsgenieRequestsOf } from '../../core/opsgenie-message.ts';
import type { WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { SendOutcome } from '../../core/send-outcome.ts';
import { opsgenieRegionOf } from '../../core/subscription.ts';
import { type Sender, sayingOneMessage } from './sender.ts';
import { openToolKey, statusNow } from './tool-key.ts';

export type OpsgenieSenderDeps = {
  webhooks: WebhookSender;
  secrets: SecretBox;
  publicUrl: string;
  incidentStatusNow: (incidentId: string) => Promise<string | null>;
  /** OPSGENIE_API_URL: one host for every region; null, each region's own. */
  opsgenieApiUrl: string | null;
};

/** Opsgenie says a key of the wrong shape with 422, and names the key in its message. */
export const OPSGENIE: OnCallTool = {
  name: 'Opsgenie',
  errorText: opsgenieErrorText,
  refusesKey: (status, excerpt) => status === 422 && /key/i.test(opsgenieErrorText(excerpt)),
};

export function createOpsgenieChannel(deps: OpsgenieSenderDeps): Sender {
  return sayingOneMessage(async ({ subscription, mode }, message) => {
    const apiKey = await openToolKey(deps.secrets, subscription);
    const base = (deps.opsgenieApiUrl ?? OPSGENIE_API_URL_DEFAULTS[opsgenieRegionOf(subscription.target)]).replace(/\/+$/, '');
    const alert = onCallAlertOf(message, { publicUrl: deps.publicUrl, test: mode === 'test', statusNow: await statusNow(deps, message) });
    let outcome: SendOutcome | null = null;
    // In order, each only after the one before was taken: a note needs its alert. A retry sends
    // them all again; the alias makes a second create land on the same alert.
    for (const request of opsgenieRequestsOf(alert)) {
      const attempt = await deps.webhooks.send({
        url: `${base}${request.path}`,
        headers: { 'content-type': 'application/json', authorization: `GenieKey ${apiKey}` },
        body: JSON.stringify(request.body),
      });
      outcome = outcomeOfOnCallAttempt(attempt, OPSGENIE);
      if (outcome.kind !== 'sent') return outcome;
    }
    return outcome!;
  });
}
