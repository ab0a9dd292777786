/**
 * A simulated Discord channel webhook, answering as Discord documents: `POST {webhook}?wait=true`
 * answers the message object (without `wait`, 204), `PATCH {webhook}/messages/{id}` edits it, a
 * deleted message answers 404 `{"message":"Unknown Message","code":10008}`, a removed webhook 404
 * `{"message":"Unknown Webhook","code":10015}`, a body over Discord's limits 400 `Invalid Form
 * Body` (50035), and on demand 429 with `retry_after` in the body and Retry-After. The channel
 * keeps its newest messages, within a count and a byte bound, and has a page showing them as
 * they stand now.
 */
import { Hono } from 'hono';
import { escapeHtml } from '../../core/email-render.ts';
import { plural } from '../../core/plural.ts';
import { renderChatPage } from './chat-page.ts';

export type DiscordSimMessage = { id: string; content: string; embeds: unknown[]; edits: number; postedAtMs: number; editedAtMs: number | null };

export type DiscordSimOptions = { maxMessages?: number; maxBodyBytes?: number };

export type DiscordSim = {
  readonly app: Hono;
  /** The channel's messages as they stand, oldest first. */
  messages(): readonly DiscordSimMessage[];
  /** Deletes a message in the channel, as a moderator would. */
  deleteMessage(id: string): boolean;
  /** The next `count` calls answer 429, asking for `retryAfterSeconds`. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The webhook is deleted: every call answers 404 Unknown Webhook. */
  removeWebhook(): void;
  /** Every call, as method and path. */
  calls(): readonly string[];
};

/** Discord's published limits (Channel resource, "Embed Limits"; Execute Webhook: content 2000). */
const LIMITS = { content: 2000, title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, total: 6000, embeds: 10 };
const CALLS_MAX = 1000;

export function createDiscordSim(options: DiscordSimOptions = {}): DiscordSim {
  const { maxMessages = 200, maxBodyBytes = 64 * 1024 } = options;
  const messages = new Map<string, DiscordSimMessage>();
  const calls: string[] = [];
  let nextId = 1_100_000_000_000_000_000n;
  let rateLimited = 0;
  let retryAfterSeconds = 1;
  let removed = false;
  const app = new Hono();

  const error = (status: 400 | 404 | 413 | 429, message: string, code: number, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify({ message, code, ...extra }), { status, headers: { 'content-type': 'application/json', ...headers } });

  async function gate(c: { req: { method: string; path: string; raw: Request } }): Promise<Response | { body: Record<string, unknown> }> {
    calls.push(`${c.req.method} ${c.req.path}`);
    if (calls.length > CALLS_MAX) calls.shift();
    if (removed) return error(404, 'Unknown Webhook', 10015);
    if (rateLimited > 0) {
      rateLimited -= 1;
      return error(
        429,
        'You are being rate limited.',
        0,
        { retry_after: retryAfterSeconds, global: false },
        { 'retry-after': String(Math.ceil(retryAfterSeconds)) },
      );
    }
    const text = await c.req.raw.text();
    if (new TextEncoder().encode(text).length > maxBodyBytes) return error(413, 'Request entity too large', 40005);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return error(400, 'Cannot send an empty message', 50006);
    }
    if (typeof body !== 'object' || body === null) return error(400, 'Invalid Form Body', 50035);
    const problem = overLimit(body as Record<string, unknown>);
    return problem ? error(400, 'Invalid Form Body', 50035, { errors: problem }) : { body: body as Record<string, unknown> };
  }

  app.post('/api/webhooks/:id/:token', async (c) => {
    const gated = await gate(c);
    if (gated instanceof Response) return gated;
    const id = String(nextId++);
    const message: DiscordSimMessage = {
      id,
      content: String(gated.body.content ?? ''),
      embeds: (gated.body.embeds as unknown[]) ?? [],
      edits: 0,
      postedAtMs: Date.now(),
      editedAtMs: null,
    };
    messages.set(id, message);
    while (messages.size > maxMessages) messages.delete(messages.keys().next().value!);
    return c.req.query('wait') === 'true' ? c.json(wireMessage(message)) : c.body(null, 204);
  });

  app.patch('/api/webhooks/:id/:token/messages/:messageId', async (c) => {
    const gated = await gate(c);
    if (gated instanceof Response) return gated;
    const message = messages.get(c.req.param('messageId'));
    if (!message) return error(404, 'Unknown Message', 10008);
    if ('content' in gated.body) message.content = String(gated.body.content ?? '');
    if ('embeds' in gated.body) message.embeds = (gated.body.embeds as unknown[]) ?? [];
    message.edits += 1;
    message.editedAtMs = Date.now();
    return c.json(wireMessage(message));
  });

  app.get('/discord', (c) => {
    const items = [...messages.values()].reverse().map((m) => {
      const embeds = m.embeds as { title?: string; description?: string; color?: number; fields?: { name: string; value: string }[] }[];
      const body = embeds
        .map(
          (e) =>
            `<div class="embed" style="border-left:4px solid #${(e.color ?? 0).toString(16).padStart(6, '0')}"><h2>${escapeHtml(e.title ?? '')}</h2>` +
            `<dl>${(e.fields ?? []).map((f) => `<dt>${escapeHtml(f.name)}</dt><dd>${escapeHtml(f.value)}</dd>`).join('')}</dl>` +
            (e.description ? `<pre tabindex="0">${escapeHtml(e.description)}</pre>` : '') +
            '</div>',
        )
        .join('');
      return `<article><p class="about">${escapeHtml(m.content)}</p>${body}<p>message ${m.id}, edited ${plural(m.edits, 'time')}</p></article>`;
    });
    return renderChatPage(c, { title: 'Simulated Discord channel', intro: `${plural(messages.size, 'message')}, newest first, as they stand now.`, items });
  });

  return {
    app,
    messages: () => [...messages.values()],
    deleteMessage: (id) => messages.delete(id),
    rateLimitNext(count, seconds) {
      rateLimited = count;
      retryAfterSeconds = seconds;
    },
    removeWebhook() {
      removed = true;
    },
    calls: () => [...calls],
  };
}

function wireMessage(m: DiscordSimMessage) {
  return {
    type: 0,
    channel_id: '1000000000000000001',
    content: m.content,
    embeds: m.embeds,
    attachments: [],
    timestamp: new Date(m.postedAtMs).toISOString(),
    edited_timestamp: m.editedAtMs === null ? null : new Date(m.editedAtMs).toISOString(),
    webhook_id: '1000000000000000002',
    id: m.id,
  };
}

/** Which of Discord's limits the body passes, or null. */
function overLimit(body: Record<string, unknown>): string | null {
  const content = typeof body.content === 'string' ? body.content : '';
  if (content.length > LIMITS.content) return `content: must be ${LIMITS.content} or fewer in length`;
  const embeds = Array.isArray(body.embeds) ? (body.embeds as Record<string, unknown>[]) : [];
  if (embeds.length > LIMITS.embeds) return `embeds: at most ${LIMITS.embeds}`;
  if (content === '' && embeds.length === 0) return 'a message needs content or an embed';
  let total = 0;
  for (const e of embeds) {
    const title = String(e.title ?? '');
    const description = String(e.description ?? '');
    const fields = Array.isArray(e.fields) ? (e.fields as { name?: string; value?: string }[]) : [];
    const footer = String((e.footer as { text?: string } | undefined)?.text ?? '');
    if (title.length > LIMITS.title) return `embeds.title: must be ${LIMITS.title} or fewer in length`;
    if (description.length > LIMITS.description) return `embeds.description: must be ${LIMITS.description} or fewer in length`;
    if (fields.length > LIMITS.fields) return `embeds.fields: at most ${LIMITS.fields}`;
    for (const f of fields) {
      if (String(f.name ?? '').length > LIMITS.fieldName || String(f.name ?? '') === '') return 'embeds.fields.name: 1 to 256 characters';
      if (String(f.value ?? '').length > LIMITS.fieldValue || String(f.value ?? '') === '') return 'embeds.fields.value: 1 to 1024 characters';
      total += String(f.name).length + String(f.value).length;
    }
    if (footer.length > LIMITS.footer) return 'embeds.footer.text: too long';
    total += title.length + description.length + footer.length;
  }
  return total > LIMITS.total ? `embeds: ${total} characters in all, over ${LIMITS.total}` : null;
}
