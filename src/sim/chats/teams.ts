/**
 * A simulated Microsoft Teams Workflows webhook ("When a Teams webhook request is received"): a
 * POST of a `message` with Adaptive Card attachments answers 202 Accepted with no body, as the
 * workflow does; a removed workflow answers 404; on demand 429 with Retry-After. It keeps the
 * newest cards within a count and a byte bound, and has a page listing them.
 */
import { Hono } from 'hono';
import { escapeHtml } from '../../core/email-render.ts';
import { keptList } from '../kept-list.ts';
import { plural } from '../../core/plural.ts';
import { renderChatPage } from './chat-page.ts';

export type TeamsSimCard = { receivedAtMs: number; card: Record<string, unknown> };

export type TeamsSimOptions = { maxCards?: number; maxTotalBytes?: number; maxBodyBytes?: number };

export type TeamsSim = {
  readonly app: Hono;
  /** The cards received, oldest first. */
  cards(): readonly TeamsSimCard[];
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The workflow is deleted: every post answers 404. */
  removeWorkflow(): void;
};

/** Teams refuses a message over 28 KB (Workflows and incoming webhooks alike). */
export const TEAMS_MESSAGE_MAX_BYTES = 28 * 1024;

export function createTeamsSim(options: TeamsSimOptions = {}): TeamsSim {
  const { maxCards = 200, maxTotalBytes = 2_000_000, maxBodyBytes = TEAMS_MESSAGE_MAX_BYTES } = options;
  const kept = keptList<TeamsSimCard>({ maxItems: maxCards, maxBytes: maxTotalBytes });
  let rateLimited = 0;
  let retryAfterSeconds = 1;
  let removed = false;
  const app = new Hono();

  app.post('/workflows/:id', async (c) => {
    if (removed) return c.json({ error: { code: 'WorkflowNotFound', message: 'The workflow was not found.' } }, 404);
    if (rateLimited > 0) {
      rateLimited -= 1;
      return c.json({ error: { code: 'TooManyRequests', message: 'Rate limit is exceeded.' } }, 429, { 'retry-after': String(retryAfterSeconds) });
    }
    const text = await c.req.raw.text();
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > maxBodyBytes) return c.json({ error: { code: 'RequestEntityTooLarge', message: `The message is over ${maxBodyBytes} bytes.` } }, 413);
    let body: { type?: unknown; attachments?: { contentType?: unknown; content?: unknown }[] };
    try {
      body = JSON.parse(text);
    } catch {
      return c.json({ error: { code: 'InvalidRequestContent', message: 'The request content is not valid JSON.' } }, 400);
    }
    const cards = Array.isArray(body.attachments) ? body.attachments.filter((a) => a?.contentType === 'application/vnd.microsoft.card.adaptive') : [];
    if (body.type !== 'message' || cards.length === 0)
      return c.json({ error: { code: 'InvalidRequestContent', message: 'Expected a message with an Adaptive Card attachment.' } }, 400);
    for (const card of cards) kept.add({ receivedAtMs: Date.now(), card: (card.content ?? {}) as Record<string, unknown> }, bytes);
    return c.body(null, 202);
  });

  app.get('/teams', (c) => {
    const items = [...kept.items()].reverse().map(({ receivedAtMs, card }) => {
      const texts: string[] = [];
      collectTexts(card.body, texts);
      return `<article><p class="about">${new Date(receivedAtMs).toISOString()}</p><pre tabindex="0">${escapeHtml(texts.join('\n'))}</pre></article>`;
    });
    return renderChatPage(c, { title: 'Simulated Teams channel', intro: `${plural(kept.items().length, 'card')}, newest first.`, items });
  });

  return {
    app,
    cards: () => kept.items(),
    rateLimitNext(count, seconds) {
      rateLimited = count;
      retryAfterSeconds = seconds;
    },
    removeWorkflow() {
      removed = true;
    },
  };
}

/** The card's words in reading order: TextBlocks' text and FactSets' facts, inside containers too. */
function collectTexts(elements: unknown, out: string[], depth = 0): void {
  if (!Array.isArray(elements) || depth > 10) return;
  for (const element of elements as Record<string, unknown>[]) {
    if (element?.type === 'TextBlock') out.push(String(element.text ?? ''));
    if (element?.type === 'FactSet' && Array.isArray(element.facts))
      for (const f of element.facts as { title: string; value: string }[]) out.push(`${f.title}: ${f.value}`);
    if (element?.type === 'Container') collectTexts(element.items, out, depth + 1);
  }
}
