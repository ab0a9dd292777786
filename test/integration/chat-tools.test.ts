/**
 * Teams and Discord through the whole service: subscribed with the API, fed by polls of the
 * simulated vendor, delivered from the durable outbox to the simulated tools over loopback. The
 * URL authorizes posting: the API shows only its host, the archive holds only its seal, and the
 * logs never name it. One incident from creation through a note, an edit and its resolution.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChatSims } from '../../src/sim/chats/index.ts';
import { serveSimulator } from '../../src/sim/serve-simulator.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { startTestApp } from '../helpers/app-service.ts';

const TOKEN = 'tok3n-that-authorizes-posting';

describe('Teams and Discord through the service', () => {
  const t = useAppOnVendor({
    side: async () => {
      const sims = createChatSims();
      const served = await serveSimulator(sims, {});
      return { sims, url: served.url, close: () => served.close() };
    },
    env: () => ({ WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_URL: 'https://status.example.test' }),
    firstPoll: true,
  });

  const discordUrl = () => `${t.side.url}/api/webhooks/42/${TOKEN}`;
  const teamsUrl = () => `${t.side.url}/workflows/7?sig=${TOKEN}`;

  it('subscribes with the contract names, answers 201 without the URL, and keeps only its seal', async () => {
    for (const [channel, url] of [
      ['teams', teamsUrl()],
      ['discord', discordUrl()],
    ] as const) {
      const created = await t.service.admin('POST', '/api/subscriptions', { channel, url, filters: { services: [] } });
      expect(created.status, channel).toBe(201);
      expect(created.body.subscription).toMatchObject({ channel, url_host: new URL(t.side.url).host, status: 'active' });
      expect(JSON.stringify(created.body), channel).not.toContain(TOKEN);
      const id = created.body.subscription.id as string;
      // A change of filters keeps the seal; a new URL replaces it, and is not echoed either.
      const edited = await t.service.admin('PATCH', `/api/subscriptions/${id}`, { filters: { types: ['outage'] } });
      expect(edited.status).toBe(200);
      const moved = await t.service.admin('PATCH', `/api/subscriptions/${id}`, { url: `${url}x` });
      expect(moved.status).toBe(200);
      expect(JSON.stringify(moved.body)).not.toContain(TOKEN);
      const stored = await t.service.store.getSubscription(id);
      expect(stored?.target).not.toContain(TOKEN);
    }
    const listed = await t.service.admin('GET', '/api/subscriptions');
    expect(JSON.stringify(listed.body)).not.toContain(TOKEN);
    // The archive and its write-ahead log, byte for byte.
    for (const file of readdirSync(t.service.dir).filter((f) => f.startsWith('archive.db')))
      expect(readFileSync(join(t.service.dir, file)).includes(TOKEN), file).toBe(false);
  });

  it('refuses a loopback URL without WEBHOOK_ALLOW_PRIVATE, naming the setting, at creation and at a change', async () => {
    const strict = await startTestApp(t.vendor.url, { env: { PUBLIC_URL: 'https://status.example.test' } });
    try {
      for (const channel of ['teams', 'discord']) {
        const answer = await strict.admin('POST', '/api/subscriptions', { channel, url: `https://127.0.0.1:9/api/webhooks/1/${TOKEN}` });
        expect(answer.status).toBe(400);
        expect(answer.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE');
        expect(JSON.stringify(answer.body)).not.toContain(TOKEN);
        // A change to a loopback URL is held to the same rule.
        const created = await strict.admin('POST', '/api/subscriptions', { channel, url: `https://hooks.example.com/api/webhooks/1/${TOKEN}` });
        expect(created.status).toBe(201);
        const moved = await strict.admin('PATCH', `/api/subscriptions/${created.body.subscription.id}`, { url: `https://127.0.0.1:9/api/webhooks/1/${TOKEN}` });
        expect(moved.status).toBe(400);
        expect(moved.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE');
        expect(JSON.stringify(moved.body)).not.toContain(TOKEN);
        expect((await strict.admin('GET', `/api/subscriptions/${created.body.subscription.id}`)).body.subscription.url_host).toBe('hooks.example.com');
      }
    } finally {
      await strict.close();
    }
  });

  it('delivers one incident from creation to resolution: a card per change, one Discord message showing the end', async () => {
    for (const [channel, url] of [
      ['teams', teamsUrl()],
      ['discord', discordUrl()],
    ] as const) {
      expect((await t.service.admin('POST', '/api/subscriptions', { channel, url })).status).toBe(201);
    }
    const created = rawIncident({
      id: 3001,
      title: 'Calls drop',
      type: 'outage',
      services: ['Calls'],
      notes: [{ body: '<p>Investigating.</p>', date_created: '2026-10-01T05:39:35-07:00' }],
    });
    const noted = {
      ...created,
      date_updated: '2026-10-01T06:00:00-07:00',
      notes: [...created.notes, { body: '<p>Fix rolling out.</p>', date_created: '2026-10-01T06:00:00-07:00' }],
    };
    const edited = { ...noted, title: 'Calls drop in Europe', date_updated: '2026-10-01T06:10:00-07:00' };
    const resolved = {
      ...edited,
      status: 'resolved',
      date_updated: '2026-10-01T06:30:00-07:00',
      notes: [...edited.notes, { body: '<p>All calls connect.</p>', date_created: '2026-10-01T06:30:00-07:00' }],
    };
    for (const step of [created, noted, edited, resolved]) {
      await t.vendor.setIncidents([step]);
      expect((await t.service.poll()).outcome).toBe('ok');
      await t.service.deliverNow();
    }
    expect(t.side.sims.teams.cards()).toHaveLength(4);
    const messages = t.side.sims.discord.messages();
    expect(messages).toHaveLength(1);
    const [embed] = messages[0]!.embeds as { title: string; description: string }[];
    expect(embed).toMatchObject({ title: 'Resolved: Calls drop in Europe', description: 'All calls connect.' });
    expect(messages[0]!.edits).toBe(3);
    // The deliveries' attempt log names the host at most, never the URL's token.
    const deliveries = await t.service.admin('GET', '/api/deliveries');
    expect(JSON.stringify(deliveries.body)).not.toContain(TOKEN);
    expect(t.service.logs.join('\n')).not.toContain(TOKEN);
  });

  it('pauses a Discord subscription whose webhook was deleted, with the tool’s words', async () => {
    const created = await t.service.admin('POST', '/api/subscriptions', { channel: 'discord', url: discordUrl() });
    t.side.sims.discord.removeWebhook();
    await t.vendor.setIncidents([rawIncident({ id: 3002, title: 'Search is slow' })]);
    await t.service.poll();
    await t.service.deliverNow();
    const after = await t.service.admin('GET', `/api/subscriptions/${created.body.subscription.id}`);
    expect(after.body.subscription.status).toBe('paused');
    expect(after.body.subscription.paused_reason).toMatch(/^the Discord webhook no longer takes messages \(HTTP 404: Unknown Webhook \(10015\)\)/);
  });

  it('sends a test of each event type to both tools', async () => {
    for (const [channel, url] of [
      ['teams', teamsUrl()],
      ['discord', discordUrl()],
    ] as const) {
      const created = await t.service.admin('POST', '/api/subscriptions', { channel, url });
      const test = await t.service.admin('POST', `/api/subscriptions/${created.body.subscription.id}/test`);
      expect(test.status, channel).toBe(200);
      expect(JSON.stringify(test.body)).not.toContain('"ok":false');
    }
    expect(t.side.sims.teams.cards().length).toBeGreaterThan(0);
    expect(t.side.sims.discord.messages().length).toBeGreaterThan(0);
  });
});
