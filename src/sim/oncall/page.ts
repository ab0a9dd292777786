/** The simulated on-call tools' page: each tool's alerts as it holds them, and the calls that came, newest first, every value escaped. */
import { escapeHtml, formatBytes, type Reload, renderCatcherPage } from '../catcher-page.ts';
import type { OpsgenieAlertState, PagerDutyAlertState } from './tools.ts';

export type CaughtCall = { at: number; tool: 'pagerduty' | 'opsgenie'; path: string; status: number; body: string };

export function renderOnCallPage(view: {
  calls: readonly CaughtCall[];
  pagerDuty: readonly PagerDutyAlertState[];
  opsgenie: readonly OpsgenieAlertState[];
  maxCalls: number;
  maxTotalBytes: number;
  reload: Reload;
}): string {
  const pd = view.pagerDuty
    .map(
      (a) =>
        `<tr><td><code>${escapeHtml(a.dedupKey)}</code></td><td>${escapeHtml(a.summary)}</td><td>${a.status}</td><td>${a.triggers}</td><td>${a.resolves}</td></tr>`,
    )
    .join('');
  const og = view.opsgenie
    .map(
      (a) =>
        `<tr><td><code>${escapeHtml(a.alias)}</code></td><td>${escapeHtml(a.message)}</td><td>${a.status}</td><td>${a.notes.length}</td><td>${a.closes}</td></tr>`,
    )
    .join('');
  const calls = [...view.calls]
    .reverse()
    .map(
      (c) => `<article><h2>${c.tool === 'pagerduty' ? 'PagerDuty' : 'Opsgenie'} ${escapeHtml(c.path)} → ${c.status}</h2>
<p><time datetime="${new Date(c.at).toISOString()}">${new Date(c.at).toISOString()}</time></p><pre class="body" tabindex="0">${escapeHtml(pretty(c.body))}</pre></article>`,
    )
    .join('\n');
  const body = `<h2>PagerDuty alerts</h2>${pd ? `<table><tr><th>dedup_key</th><th>Summary</th><th>Status</th><th>Triggers</th><th>Resolves</th></tr>${pd}</table>` : '<p>None yet.</p>'}
<h2>Opsgenie alerts</h2>${og ? `<table><tr><th>alias</th><th>Message</th><th>Status</th><th>Notes</th><th>Closes</th></tr>${og}</table>` : '<p>None yet.</p>'}
<h2>Calls</h2>${calls || '<p>No call yet. One comes with each change to an incident, or at once with <em>Send test</em> on a PagerDuty or Opsgenie subscription.</p>'}`;
  return renderCatcherPage({
    title: `statuswatch demo: on-call tools (${view.calls.length})`,
    heading: 'PagerDuty and Opsgenie, simulated',
    intro: `<p>The demo's PagerDuty and Opsgenie subscriptions send here. The last ${view.maxCalls.toLocaleString('en-US')} calls (at most ${formatBytes(view.maxTotalBytes)} in all) are kept; routing keys are not shown.</p>`,
    body,
    reload: view.reload,
  });
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
