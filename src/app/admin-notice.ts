/**
 * Every mail to the admin (ADMIN_EMAIL) is written and sent here: the monitor's own news, a
 * paused subscription, a broken installation of the workspace app, a group gone from the
 * directory. Each is logged where the caller needs it; mailed when mail and ADMIN_EMAIL are set.
 */
import type { MonitorEvent } from '../core/events.ts';
import { renderMonitorAdminEmail } from '../core/monitor-message.ts';
import { oneLine, truncate } from '../core/notification-message.ts';
import { renderInstallationBrokenEmail } from '../core/workspace-app/installation-email.ts';
import type { InstallationRecord, Logger, Mailer, StoredSource, StoredSubscription } from '../core/ports.ts';
import type { GroupLink } from '../core/ports/scim-directory.ts';

export type AdminNoticeDeps = {
  mailer: Mailer | null;
  adminEmail?: string | undefined;
  publicUrl: string;
  logger: Logger;
};

type AdminMail = { subject: string; text: string };

/** Mails the admin, if mail and ADMIN_EMAIL are set; a failed send is logged as `failure`, never thrown. */
async function mailAdmin(deps: AdminNoticeDeps, mail: AdminMail, failure: string, fields: Record<string, unknown>): Promise<void> {
  if (!deps.mailer || !deps.adminEmail) return;
  const sent = await deps.mailer.send({ to: deps.adminEmail, subject: mail.subject, text: mail.text, html: '', headers: {} });
  if (!sent.ok) deps.logger.warn(failure, { ...fields, error: sent.response });
}

/**
 * Tells the admin of the monitor's own news: the feed went blind, or is read again. Subscribers
 * hear it through the outbox; the admin is told directly, once, by the poll that wrote the event
 * (its id is the episode's, so no other poll writes it again). Undefined when there is nobody to tell.
 */
export function createAdminNotice(deps: AdminNoticeDeps): ((event: MonitorEvent) => Promise<void>) | undefined {
  if (!deps.mailer || !deps.adminEmail) return undefined;
  return (event) => mailAdmin(deps, renderMonitorAdminEmail(event.data, deps.publicUrl), 'could not tell the admin of the monitor event', { event: event.id });
}

/**
 * Tells the admin that a source (a status page watched beside the main feed) has not been read
 * for the staleness limit: its state is unknown until it is read again. Once per episode, by the
 * poll that found it; always logged by that poll.
 */
export function createSourceBlindNotice(deps: AdminNoticeDeps): (source: StoredSource, blindSince: number, error: string) => Promise<void> {
  return async (source, blindSince, error) => {
    // The name may be the page's own (an outsider's text): one line, in the subject and the body.
    const name = truncate(oneLine(source.name), 100);
    const text = [
      `statuswatch has not read the status page "${name}" since ${new Date(blindSince).toISOString()}: its state is unknown.`,
      '',
      `Page: ${source.url}`,
      `Last error: ${oneLine(error)}`,
      '',
      `It is polled every minute still; you are told once, and the sources list says when it is read again: ${deps.publicUrl}/admin/sources`,
    ].join('\n');
    const subject = `[statuswatch] Source unknown: ${name}`;
    await mailAdmin(deps, { subject, text }, 'could not tell the admin of the blind source', { source: source.id });
  };
}

/** The words a subscription goes by in a mail: its title as the admin pages show it, or its channel. */
export type PausedSubscriptionTitle = (subscription: StoredSubscription) => Promise<string>;

/** Longest subscription title in a notice's subject; the body has it whole. */
const SUBJECT_TITLE_MAX_CHARS = 80;

/**
 * Tells the admin that the deliverer paused a subscription, and how to resume it; always logged.
 * The mail names the subscription as the admin pages do ("#status-updates (Demo workspace)"):
 * the raw target of a chat or group subscription says nothing to a reader.
 */
export function createPauseNotice(
  deps: AdminNoticeDeps & { titleOf?: PausedSubscriptionTitle },
): (subscription: StoredSubscription, reason: string) => Promise<void> {
  return async (subscription, reason) => {
    deps.logger.warn('subscription paused', { subscription: subscription.id, channel: subscription.channel, target: subscription.target, reason });
    if (!deps.mailer || !deps.adminEmail) return;
    // A conversation's or group's name comes from outside: one line, so it cannot break the subject.
    const title = oneLine(await titleOrChannel(deps, subscription));
    const text = [
      `statuswatch paused a ${subscription.channel} subscription: ${reason}.`,
      '',
      `Subscription: ${title}`,
      `Id: ${subscription.id}`,
      '',
      `Nothing more is sent to it until it is resumed: POST ${deps.publicUrl}/api/subscriptions/${subscription.id}/resume`,
    ].join('\n');
    const subject = `[statuswatch] Subscription paused: ${truncate(title, SUBJECT_TITLE_MAX_CHARS)}`;
    await mailAdmin(deps, { subject, text }, 'could not tell the admin of a paused subscription', {});
  };
}

/** The subscription's title; its channel when the title cannot be read (the notice still goes). */
async function titleOrChannel(deps: AdminNoticeDeps & { titleOf?: PausedSubscriptionTitle }, subscription: StoredSubscription): Promise<string> {
  if (!deps.titleOf) return subscription.channel;
  try {
    return await deps.titleOf(subscription);
  } catch (error) {
    deps.logger.warn('could not name the paused subscription', { subscription: subscription.id, error: String(error) });
    return subscription.channel;
  }
}

/**
 * Tells the admin that an installation of the workspace app broke or was uninstalled by the
 * vendor. Called once per break, by the process whose write moved the installation (the store's
 * markBroken says which); always logged.
 */
export function createInstallationNotice(deps: AdminNoticeDeps): (installation: InstallationRecord) => Promise<void> {
  return async (installation) => {
    deps.logger.warn('the workspace app needs to be installed again', {
      installation: installation.id,
      team: installation.teamId,
      reason: installation.reason,
    });
    const mail = renderInstallationBrokenEmail(installation, deps.publicUrl);
    await mailAdmin(deps, mail, 'could not tell the admin of the broken installation', { installation: installation.id });
  };
}

/**
 * Tells the admin that a group subscription's group is gone from the SCIM directory: its members
 * get no more alerts, and the subscription is kept. Called once, by the sync that found it gone;
 * always logged.
 */
export function createGroupDeletedNotice(deps: AdminNoticeDeps): (link: GroupLink) => Promise<void> {
  return async (link) => {
    deps.logger.warn("a group subscription's group was deleted from the directory", { subscription: link.subscriptionId, group: link.groupId });
    const text = [
      `The SCIM directory no longer has the group "${link.groupName}" (${link.groupId}).`,
      '',
      `Its members get no more alerts from subscription ${link.subscriptionId}. The subscription is kept:`,
      'should the group come back under the same id, its members receive alerts again after the next sync.',
      '',
      `The group's page: ${deps.publicUrl}/admin/directory/${encodeURIComponent(link.subscriptionId)}`,
    ].join('\n');
    const subject = `[statuswatch] Directory group deleted: ${link.groupName.slice(0, 100)}`;
    await mailAdmin(deps, { subject, text }, 'could not tell the admin of the deleted group', { subscription: link.subscriptionId });
  };
}
