/**
 * Tells the admin (ADMIN_EMAIL) of the monitor's own news: the feed went blind, or is read again.
 * Subscribers hear it through the outbox; the admin is told directly, once, by the poll that wrote
 * the event (its id is the episode's, so no other poll writes it again).
 */
import type { MonitorEvent } from '../core/events.ts';
import { renderMonitorAdminEmail } from '../core/monitor-message.ts';
import type { Logger, Mailer } from '../core/ports.ts';

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
