/**
 * The simulated Teams and Discord webhooks answer as each tool documents, keep what they got
 * within their bounds however much arrives, and show it on pages that escape what was sent.
 */
import { describe, expect, it } from 'vitest';
import { createDiscordSim } from '../../src/sim/chats/discord.ts';
import { createTeamsSim } from '../../src/sim/chats/teams.ts';

const HOSTILE = '<script>alert(1)</script>';
const send = (app: { fetch(r: Request): Response | Promise<Response> }, method: string, path: string, body: unknown) =>
  app.fetch(new Request(`http://sim.test${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
const embed = (title: string) => ({ content: 'x', embeds: [{ title, color: 1, fields: [{ name: 'Status', value: 'Active' }] }] });

describe('simulated Discord webhook', () => {
  it('answers the message object with ?wait=true, 204 without, edits with PATCH, and 404 Unknown Message once deleted', async () => {
    const sim = createDiscordSim();
    const posted = await send(sim.app, 'POST', '/api/webhooks/1/t?wait=true', embed('first'));
    expect(posted.status).toBe(200);
    const message = (await posted.json()) as { id: string; embeds: { title: string }[] };
    expect(message.id).toMatch(/^\d+$/);
    expect((await send(sim.app, 'POST', '/api/webhooks/1/t', embed('no wait'))).status).toBe(204);
    const edited = await send(sim.app, 'PATCH', `/api/webhooks/1/t/messages/${message.id}`, embed('second'));
    expect(((await edited.json()) as { embeds: { title: string }[] }).embeds[0]!.title).toBe('second');
    sim.deleteMessage(message.id);
    const gone = await send(sim.app, 'PATCH', `/api/webhooks/1/t/messages/${message.id}`, embed('third'));
    expect([gone.status, await gone.json()]).toEqual([404, { message: 'Unknown Message', code: 10008 }]);
  });

  it('refuses a body over Discord’s limits with 400 Invalid Form Body, and rate-limits on demand', async () => {
    const sim = createDiscordSim();
    const long = await send(sim.app, 'POST', '/api/webhooks/1/t?wait=true', embed('t'.repeat(257)));
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ message: 'Invalid Form Body', code: 50035 });
    sim.rateLimitNext(1, 1.5);
    const limited = await send(sim.app, 'POST', '/api/webhooks/1/t?wait=true', embed('ok'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toMatchObject({ retry_after: 1.5 });
    expect((await send(sim.app, 'POST', '/api/webhooks/1/t?wait=true', embed('ok'))).status).toBe(200);
  });

  it('keeps at most its newest messages, and its page escapes what was sent', async () => {
    const sim = createDiscordSim({ maxMessages: 3 });
    for (let i = 0; i < 10; i++) await send(sim.app, 'POST', '/api/webhooks/1/t?wait=true', embed(`${HOSTILE} ${i}`));
    expect(sim.messages().map((m) => (m.embeds[0] as { title: string }).title)).toEqual([7, 8, 9].map((i) => `${HOSTILE} ${i}`));
    const page = await (await sim.app.fetch(new Request('http://sim.test/discord'))).text();
    expect(page).not.toContain(HOSTILE);
    expect(page).toContain('&lt;script&gt;');
  });
});

describe('simulated Teams workflow', () => {
  const card = (text: string) => ({
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text }] } },
    ],
  });

  it('answers 202 to a card, 400 to anything else, 404 once the workflow is gone, 429 on demand', async () => {
    const sim = createTeamsSim();
    expect((await send(sim.app, 'POST', '/workflows/1', card('hello'))).status).toBe(202);
    expect((await send(sim.app, 'POST', '/workflows/1', { text: 'not a card' })).status).toBe(400);
    sim.rateLimitNext(1, 4);
    const limited = await send(sim.app, 'POST', '/workflows/1', card('x'));
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '4']);
    sim.removeWorkflow();
    expect((await send(sim.app, 'POST', '/workflows/1', card('x'))).status).toBe(404);
    expect(sim.cards()).toHaveLength(1);
  });

  it('refuses a message over 28 KB, keeps its newest cards within count and bytes, and escapes its page', async () => {
    const sim = createTeamsSim({ maxCards: 2 });
    expect((await send(sim.app, 'POST', '/workflows/1', card('y'.repeat(29 * 1024)))).status).toBe(413);
    for (let i = 0; i < 5; i++) await send(sim.app, 'POST', '/workflows/1', card(`${HOSTILE} ${i}`));
    expect(sim.cards()).toHaveLength(2);
    const page = await (await sim.app.fetch(new Request('http://sim.test/teams'))).text();
    expect(page).not.toContain(HOSTILE);
    expect(page).toContain(`&lt;script&gt;alert(1)&lt;/script&gt; 4`);
  });
});
