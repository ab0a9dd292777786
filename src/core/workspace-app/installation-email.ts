/**
 * The admin's email when an installation of the workspace app breaks: which workspace,
 * what the vendor said, that its messages are held, and what to do. Never a token.
 */
import type { InstallationRecord } from '../ports/installations.ts';
import { oneLine } from '../notification-message.ts';

export function renderInstallationBrokenEmail(installation: InstallationRecord, publicUrl: string): { subject: string; text: string } {
  const reason = oneLine(installation.reason ?? 'no reason given').slice(0, 200);
  const page = `${publicUrl.replace(/\/+$/, '')}/admin/app`;
  if (installation.state === 'uninstalled') {
    return {
      subject: `statuswatch: the workspace app was uninstalled from ${installation.teamId}`,
      text: [
        `The vendor says the workspace app is no longer installed in workspace ${installation.teamId} (${reason}).`,
        'statuswatch removed its tokens. Messages for that workspace are held until the app is installed again.',
        '',
        `Install it again: ${page}`,
      ].join('\n'),
    };
  }
  return {
    subject: `statuswatch: the workspace app needs to be installed again in ${installation.teamId}`,
    text: [
      `The vendor no longer accepts the workspace app's tokens for workspace ${installation.teamId} (${reason}).`,
      'Its messages are held, not lost: they are sent once the app is installed again.',
      '',
      `Install it again: ${page}`,
    ].join('\n'),
  };
}
