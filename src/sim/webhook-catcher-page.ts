/** The demo webhook catcher's page: the deliveries it kept, newest first, each with its signature's verdict, every value escaped. */
import { escapeHtml, formatBytes, type Reload, renderCatcherPage } from './catcher-page.ts';

export type CaughtWebhook = {
  receivedAtMs: number;
  /** The `webhook-id` header: the same across retries of one delivery. */
  id: string;
  /** The `webhook-timestamp` header, as sent. */
  timestamp: string;
  /** As received, shown as text (indented when it is JSON). */
  body: string;
  valid: boolean;
  /** Why the signature was refused; empty when valid. */
  reason: string;
};

export type SignatureChecker = { name: 'standardwebhooks' | 'statuswatch' };

const CHECKERS: Record<SignatureChecker['name'], string> = {
  standardwebhooks: 'the <code>standardwebhooks</code> library (the reference receiver, independent of statuswatch’s signing code)',
  statuswatch: 'statuswatch’s own verifier (used when the <code>standardwebhooks</code> library is not installed)',
};

/** The event type, the incident it is about (if any), and the body to show: JSON indented, anything else as it came. */
function readBody(body: string): { type: string; about: string; shown: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { type: '(not JSON)', about: '', shown: body };
  }
  const field = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);
  const type = field(parsed, 'type');
  const title = field(field(field(parsed, 'data'), 'incident'), 'title');
  return { type: typeof type === 'string' ? type : '(no type)', about: typeof title === 'string' ? title : '', shown: JSON.stringify(parsed, null, 2) };
}

export function renderWebhookCatcherPage(
  deliveries: readonly CaughtWebhook[],
  about: { checker: SignatureChecker['name']; maxDeliveries: number; maxTotalBytes: number; keptBytes: number; reload: Reload },
): string {
  const items = [...deliveries]
    .reverse()
    .map((delivery) => {
      const { type, about, shown } = readBody(delivery.body);
      const verdict = delivery.valid
        ? '<span class="verdict valid">signature valid</span>'
        : `<span class="verdict invalid">signature invalid</span> ${escapeHtml(delivery.reason)}`;
      return `<article>
<h2>${escapeHtml(type)}</h2>
<p>${verdict}</p>
${about === '' ? '' : `<p class="about">${escapeHtml(about)}</p>`}
<dl><dt>Received</dt><dd><time datetime="${new Date(delivery.receivedAtMs).toISOString()}">${new Date(delivery.receivedAtMs).toISOString()}</time></dd><dt>webhook-id</dt><dd><code>${escapeHtml(delivery.id || '(none)')}</code></dd><dt>Timestamp</dt><dd><code>${escapeHtml(delivery.timestamp || '(none)')}</code></dd></dl>
<pre class="body" tabindex="0">${escapeHtml(shown)}</pre>
</article>`;
    })
    .join('\n');
  const empty =
    '<p>No webhook yet. One arrives with each change to an incident, or at once with <em>Send test</em> on the demo’s webhook subscription in the admin.</p>';
  const intro = `<p>The demo subscribed this catcher to its webhooks. Each delivery’s signature is checked with ${CHECKERS[about.checker]}, against the secret the subscription was given. The last ${about.maxDeliveries.toLocaleString('en-US')} deliveries (at most ${formatBytes(about.maxTotalBytes)} in all) are kept, newest first: ${deliveries.length} now, ${formatBytes(about.keptBytes)}.</p>`;
  return renderCatcherPage({
    title: `statuswatch demo: webhook catcher (${deliveries.length})`,
    heading: 'Webhooks caught by the demo',
    intro,
    body: items || empty,
    reload: about.reload,
  });
}
