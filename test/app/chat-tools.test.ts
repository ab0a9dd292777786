/**
 * Microsoft Teams and Discord, end to end over real HTTP on loopback: the senders against the
 * simulated tools (src/sim/chats), a real SQLite archive keeping Discord's message ids, and the
 * URLs sealed as the subscription service seals them. One incident goes from creation through a
 * note, an edit and its resolution: Teams gets a card per change, Discord ends with one message
 * showing the final state.
 */
import { webCryptoHashes } from '../../src/core/web-crypto-hashes.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { createSenders } from '../../src/app/senders/index.ts';
import type { Senders } from '../../src/app/senders/sender.ts';
import type { StatusEvent } from '../../src/core/events.ts';
import type { StoredSubscription, WebhookSender } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey, type SecretBox } from '../../src/core/secret-box.ts';
import { type Channel, sealedUrlTarget } from '../../src/core/subscription.ts';
import { createChatSims, type ChatSims } from '../../src/sim/chats/index.ts';
import { serveSimulator, type ServedSimulator } from '../../src/sim/serve-simulator.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { pollEvents, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const PUBLIC_URL = 'https://status.example.test';

/** The incident at each step: new, a note, a title edit, resolved with a final note. */
function lifecycle(): RawIncident[] {
  const created = rawIncident({
    id: 2001,
    title: 'Messages are delayed',
    type: 'outage',
    services: ['Messaging'],
    notes: [{ body: '<p>We are looking into delays.</p>', date_created: '2026-10-01T05:39:35-07:00' }],
  });
  const noted = {
    ...created,
    date_updated: '2026-10-01T06:00:00-07:00',
    notes: [...created.notes, { body: '<p>A fix is rolling out.</p>', date_created: '2026-10-01T06:00:00-07:00' }],
  };
  const edited = { ...noted, title: 'Messages are delayed for some workspaces', date_updated: '2026-10-01T06:10:00-07:00' };
  const resolved = {
    ...edited,
    status: 'resolved',
    date_updated: '2026-10-01T06:30:00-07:00',
    notes: [...edited.notes, { body: '<p>Messages flow normally again.</p>', date_created: '2026-10-01T06:30:00-07:00' }],
  };
  return [created, noted, edited, resolved];
}

/** Each step's events, under the revision the archive would give them (1, 2, 3, …). */
function lifecycleEvents(): StatusEvent[][] {
  const steps = lifecycle();
  return steps.map((after, i) => pollEvents([after], i === 0 ? [] : [steps[i - 1]!]).map((e) => ({ ...e, revision: i + 1 })));
}

describe('Teams and Discord', () => {
  let sims: ChatSims;
  let served: ServedSimulator;
  let archive: TempArchive;
  let webhooks: WebhookSender;
  let secrets: SecretBox;
  let senders: Senders;

  beforeEach(async () => {
    sims = createChatSims();
    served = await serveSimulator(sims, {});
    archive = openTempArchive();
    webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });
    secrets = await createSecretBox(generateSecretKey());
    senders = createSenders({
      store: archive.store,
      webhooks,
      mailer: null,
      secrets,
      clock: { now: Date.now },
      publicUrl: PUBLIC_URL,
      sanitizeHtml: (html) => html,
      linkFor: async (id, purpose) => `${PUBLIC_URL}/${purpose}?subscription=${id}`,
      app: null,
      groupMail: null,
      adminEmail: null,
      hashes: webCryptoHashes,
      pagerdutyEventsUrl: 'https://events.pagerduty.example.test/v2/enqueue',
      opsgenieApiUrl: null,
      incidentStatusNow: async () => null,
    });
  });
  afterEach(async () => {
    await webhooks.close();
    await served.close();
    archive.remove();
  });

  async function subscription(channel: Channel, url: string): Promise<StoredSubscription> {
    return storedSubscription(`sub_${channel}`, { channel, target: await sealedUrlTarget(url), secretSealed: await secrets.seal(url) });
  }
  const discordUrl = () => `${served.url}/api/webhooks/1234/s3cr3t-token`;
  const teamsUrl = () => `${served.url}/workflows/abc?sig=s3cr3t-sig`;

  it('Discord: one message per incident, posted once and edited in place to the final state', async () => {
    const sub = await subscription('discord', discordUrl());
    const steps = lifecycleEvents();
    for (const [i, events] of steps.entries()) {
      const outcome = await senders.discord({ subscription: sub, events, deliveryKey: `d${i}`, mode: 'live' });
      expect(outcome.kind).toBe('sent');
    }
    // A resend of any step (a crash after the edit, before the outbox marked it) edits the same message.
    expect((await senders.discord({ subscription: sub, events: steps[3]!, deliveryKey: 'd3', mode: 'live' })).kind).toBe('sent');
    const messages = sims.discord.messages();
    expect(messages).toHaveLength(1);
    expect(sims.discord.calls().map((c) => c.split(' ')[0])).toEqual(['POST', 'PATCH', 'PATCH', 'PATCH', 'PATCH']);
    const [embed] = messages[0]!.embeds as { title: string; description: string; color: number; fields: { name: string; value: string }[] }[];
    expect(embed!.title).toBe('Resolved: Messages are delayed for some workspaces');
    expect(embed!.description).toBe('Messages flow normally again.');
    expect(embed!.fields.find((f) => f.name === 'Status')?.value).toBe('Resolved (was Active)');
    expect(embed!.color).toBe(0x57f287);
    // The token in the URL is never in what the subscription shows.
    expect(sub.target).not.toContain('s3cr3t');
  });

  it('Discord: an older delivery retried late does not edit the message back', async () => {
    const sub = await subscription('discord', discordUrl());
    const steps = lifecycleEvents();
    await senders.discord({ subscription: sub, events: steps[0]!, deliveryKey: 'd0', mode: 'live' });
    await senders.discord({ subscription: sub, events: steps[3]!, deliveryKey: 'd3', mode: 'live' });
    expect((await senders.discord({ subscription: sub, events: steps[1]!, deliveryKey: 'd1', mode: 'live' })).kind).toBe('sent');
    const [embed] = sims.discord.messages()[0]!.embeds as { title: string }[];
    expect(embed!.title).toMatch(/^Resolved: /);
    expect(sims.discord.calls()).toHaveLength(2);
  });

  it('Discord: a deleted message is posted again once, and the next change edits the new one', async () => {
    const sub = await subscription('discord', discordUrl());
    const steps = lifecycleEvents();
    await senders.discord({ subscription: sub, events: steps[0]!, deliveryKey: 'd0', mode: 'live' });
    const first = sims.discord.messages()[0]!.id;
    sims.discord.deleteMessage(first);
    const reposted = await senders.discord({ subscription: sub, events: steps[1]!, deliveryKey: 'd1', mode: 'live' });
    expect(reposted).toMatchObject({ kind: 'sent' });
    expect(reposted.excerpt).toContain(`message ${first} was deleted`);
    await senders.discord({ subscription: sub, events: steps[2]!, deliveryKey: 'd2', mode: 'live' });
    const messages = sims.discord.messages();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.id).not.toBe(first);
    expect(messages[0]!.edits).toBe(1);
    expect(sims.discord.calls().map((c) => c.split(' ')[0])).toEqual(['POST', 'PATCH', 'POST', 'PATCH']);
  });

  it('Discord: a 429 waits as asked (retry_after in the body); a deleted webhook pauses with the reason', async () => {
    const sub = await subscription('discord', discordUrl());
    const [created] = lifecycleEvents();
    sims.discord.rateLimitNext(1, 2.5);
    const limited = await senders.discord({ subscription: sub, events: created!, deliveryKey: 'd0', mode: 'live' });
    expect(limited).toMatchObject({ kind: 'retry', status: 429, error: 'HTTP 429: You are being rate limited. (0)' });
    // Retry-After (whole seconds) and retry_after (2.5 s) both say so; the header is read first.
    expect(limited.kind === 'retry' && limited.retryAfterMs).toBe(3000);
    sims.discord.removeWebhook();
    const removed = await senders.discord({ subscription: sub, events: created!, deliveryKey: 'd0', mode: 'live' });
    expect(removed).toMatchObject({ kind: 'gone', status: 404, error: 'HTTP 404: Unknown Webhook (10015)' });
    expect(removed.kind === 'gone' && removed.reason).toMatch(/^the Discord webhook no longer takes messages/);
    expect(JSON.stringify(removed)).not.toContain('s3cr3t');
  });

  it('Teams: an Adaptive Card per change, in the Workflows envelope, answered 202', async () => {
    const sub = await subscription('teams', teamsUrl());
    for (const [i, events] of lifecycleEvents().entries()) {
      expect(await senders.teams({ subscription: sub, events, deliveryKey: `t${i}`, mode: 'live' })).toMatchObject({ kind: 'sent', status: 202 });
    }
    const cards = sims.teams.cards();
    expect(cards).toHaveLength(4);
    const last = JSON.stringify(cards[3]!.card);
    expect(last).toContain('Resolved: Messages are delayed for some workspaces');
    expect(last).toContain('Messages flow normally again.');
    expect(last).toContain('"style":"good"');
    expect(JSON.stringify(cards[0]!.card)).toContain('"style":"attention"');
    // The title edit brings no note: its card still shows the latest one, as the card before it did.
    expect(JSON.stringify(cards[2]!.card)).toContain('Title changed from');
    expect(JSON.stringify(cards[2]!.card)).toContain('A fix is rolling out.');
  });

  it('Teams: a deleted workflow (404) pauses with a clear reason; a 429 retries when asked', async () => {
    const sub = await subscription('teams', teamsUrl());
    const [created] = lifecycleEvents();
    sims.teams.rateLimitNext(1, 7);
    expect(await senders.teams({ subscription: sub, events: created!, deliveryKey: 't0', mode: 'live' })).toMatchObject({
      kind: 'retry',
      status: 429,
      retryAfterMs: 7000,
    });
    sims.teams.removeWorkflow();
    const gone = await senders.teams({ subscription: sub, events: created!, deliveryKey: 't0', mode: 'live' });
    expect(gone).toMatchObject({ kind: 'gone', status: 404, error: 'HTTP 404: The workflow was not found. (WorkflowNotFound)' });
    expect(gone.kind === 'gone' && gone.reason).toMatch(/^the Teams workflow behind this URL no longer exists/);
  });
});
