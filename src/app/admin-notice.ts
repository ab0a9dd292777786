/**
 * Tells the admin (ADMIN_EMAIL) of the monitor's own news: the feed went blind, or is read again.
 * Subscribers hear it through the outbox; the admin is told directly, once, by the poll that wrote
 * the event (its id is the episode's, so no other poll writes it again).
 */
import type { MonitorEvent } from '../core/events.ts';
import { renderMonitorAdminEmail } from '../core/monitor-message.ts';
import { renderInstallationBrokenEmail } from '../core/installation-message.ts';
import type { InstallationRecord, Logger, Mailer } from '../core/ports.ts';
import type { GroupLink } from '../core/ports/scim-directory.ts';

export function createAdminNotice(deps: {
  mailer: Mailer | null;
  adminEmail?: string;
  publicUrl: string;
  logger: Logger;
}): ((event: MonitorEvent) => Promise<void>) | undefined {
  const { mailer, adminEmail } = deps;
  if (!mailer || !adminEmail) return undefined;
  return async (event) => {
    const { subject, text } = renderMonitorAdminEmail(event.data, deps.publicUrl);
    const sent = await mailer.send({ to: adminEmail, subject, text, html: '', headers: {} });
    if (!sent.ok) deps.logger.warn('could not tell the admin of the monitor event', { event: event.id, error: sent.response });
  };
}

/**
 * Tells the admin that an installation of the workspace app broke or was uninstalled by the vendor
 * (issue 10). Called once per break, by the process whose write moved the installation (the
 * store's markBroken says which); always logged, mailed when ADMIN_EMAIL and mail are set.
 */
export function createInstallationNotice(deps: {
  mailer: Mailer | null;
  adminEmail?: string;
  publicUrl: string;
  logger: Logger;
}): (installation: InstallationRecord) => Promise<void> {
  return async (installation) => {
    deps.logger.warn('the workspace app needs to be installed again', {
      installation: installation.id,
      team: installation.teamId,
      reason: installation.reason,
    });
    if (!deps.mailer || !deps.adminEmail) return;
    const { subject, text } = renderInstallationBrokenEmail(installation, deps.publicUrl);
    const sent = await deps.mailer.send({ to: deps.adminEmail, subject, text, html: '', headers: {} });
    if (!sent.ok) deps.logger.warn('could not tell the admin of the broken installation', { installation: installation.id, error: sent.response });
  };
}

/**
 * Tells the admin that a group subscription's group is gone from the SCIM directory: its members
 * get no more alerts, and the subscription is kept. Called once, by the sync that found it gone;
 * always logged, mailed when ADMIN_EMAIL and mail are set.
 */
export function createGroupDeletedNotice(deps: {
  mailer: Mailer | null;
  adminEmail?: string;
  publicUrl: string;
  logger: Logger;
}): (link: GroupLink) => Promise<void> {
  return async (link) => {
    deps.logger.warn("a group subscription's group was deleted from the directory", { subscription: link.subscriptionId, group: link.groupId });
    if (!deps.mailer || !deps.adminEmail) return;
    const text = [
      `The SCIM directory no longer has the group "${link.groupName}" (${link.groupId}).`,
      '',
      `Its members get no more alerts from subscription ${link.subscriptionId}. The subscription is kept:`,
      'should the group come back under the same id, its members receive alerts again after the next sync.',
      '',
      `The group's page: ${deps.publicUrl}/admin/directory/${encodeURIComponent(link.subscriptionId)}`,
    ].join('\n');
    const subject = `[statuswatch] Directory group deleted: ${link.groupName.slice(0, 100)}`;
    const sent = await deps.mailer.send({ to: deps.adminEmail, subject, text, html: '', headers: {} });
    if (!sent.ok) deps.logger.warn('could not tell the admin of the deleted group', { subscription: link.subscriptionId, error: sent.response });
  };
}
