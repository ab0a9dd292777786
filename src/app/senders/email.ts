/**
 * The email channel: one mail to the subscriber, with fresh unsubscribe and manage links. A group
 * subscription's live mail goes to each member (group-email.ts); its test goes to the admin
 * (ADMIN_EMAIL) alone, never to the group's members.
 */
import { renderDeliveryEmail } from '../../core/delivery-message.ts';
import type { TokenPurpose } from '../../core/confirmation-token.ts';
import type { Mailer } from '../../core/ports.ts';
import { groupIdOfTarget } from '../../core/scim-group.ts';
import { outcomeOfMail, refused, retry } from '../../core/send-outcome.ts';
import { type MessageSender, type Sender, sayingOneMessage } from './sender.ts';

/** Put before a test's subject, so nobody takes it for an alert. */
const TEST_SUBJECT_PREFIX = '[Test] ';

export type EmailChannelDeps = {
  /** Null when no mail is configured (SMTP_URL or MAIL_API_TOKEN): email sends are refused with that reason. */
  mailer: Mailer | null;
  publicUrl: string;
  sanitizeHtml: (html: string) => string;
  /** A fresh link carrying a token for `purpose`, stored as its hash. */
  linkFor: (subscriptionId: string, purpose: TokenPurpose) => Promise<string>;
  /** Live mail of a group subscription; null when groups are not configured. */
  groupEmail: MessageSender | null;
  /** Where a group subscription's test goes (ADMIN_EMAIL). */
  adminEmail?: string | null;
};

export function createEmailChannel(deps: EmailChannelDeps): Sender {
  return sayingOneMessage(async (send, message) => {
    const { subscription, mode } = send;
    if (!deps.mailer) return refused('email is not configured (neither SMTP_URL nor MAIL_API_TOKEN is set)');
    const group = groupIdOfTarget(subscription.target) !== null;
    if (group && mode === 'live') {
      if (!deps.groupEmail) return retry('group subscriptions need SECRET_KEY and the SCIM directory (SCIM_TOKEN)');
      return deps.groupEmail(send, message);
    }
    if (group && !deps.adminEmail) return refused("a group subscription's test is mailed to ADMIN_EMAIL, which is unset");
    // The admin's copy of a group's mail links to the subscription's admin page: the test mails
    // no member, and no link in it can unsubscribe the group.
    const adminPage = `${deps.publicUrl}/admin/subscriptions/${encodeURIComponent(subscription.id)}`;
    const email = renderDeliveryEmail(message, {
      publicUrl: deps.publicUrl,
      timeZone: subscription.timeZone,
      unsubscribeUrl: group ? adminPage : await deps.linkFor(subscription.id, 'unsubscribe'),
      manageUrl: group ? adminPage : await deps.linkFor(subscription.id, 'manage'),
      sanitizeHtml: deps.sanitizeHtml,
    });
    const to = group ? deps.adminEmail! : subscription.target;
    const subject = (mode === 'test' ? TEST_SUBJECT_PREFIX : '') + email.subject;
    return outcomeOfMail(await deps.mailer.send({ to, ...email, subject }));
  });
}
