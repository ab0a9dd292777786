/**
 * The demo's webhook catcher: real HTTP in, signed the way the service signs (webhookHeaders), a
 * page out that says per delivery whether its signature holds, shows hostile bodies inert, bounded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateWebhookSecret, webhookHeaders } from '../../src/core/webhook-signing.ts';
import { type RunningWebhookCatcher, startWebhookCatcher } from '../../src/sim/webhook-catcher.ts';

const running: RunningWebhookCatcher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
});

async function catcher(options: Parameters<typeof startWebhookCatcher>[0] = {}): Promise<RunningWebhookCatcher> {
  const started = await startWebhookCatcher(options);
  running.push(started);
  return started;
}

let sequence = 0;
/** Posts `body` signed with `secret` (and sent as `sentBody`, to tamper with it). */
async function deliver(c: RunningWebhookCatcher, secret: string, body: string, sentBody = body): Promise<number> {
  const headers = await webhookHeaders({ id: `msg_${++sequence}`, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [secret] });
  const res = await fetch(c.hookUrl, { method: 'POST', headers, body: sentBody });
  await res.text();
  return res.status;
}

const event = (type: string, extra: Record<string, unknown> = {}) => JSON.stringify({ type, timestamp: new Date().toISOString(), data: extra });

describe('webhook catcher', () => {
  it('checks each signature with the standardwebhooks library: valid ones answered 204, a tampered body refused with 401', async () => {
    const c = await catcher();
    const secret = generateWebhookSecret();
    c.trust(secret);
    expect(c.checker).toBe('standardwebhooks');
    expect(await deliver(c, secret, event('incident.created'))).toBe(204);
    expect(await deliver(c, secret, event('incident.resolved'), event('incident.resolved', { forged: true }))).toBe(401);
    expect(await deliver(c, generateWebhookSecret(), event('incident.note_added'))).toBe(401);
    expect(c.deliveries().map((d) => d.valid)).toEqual([true, false, false]);
    const html = await (await fetch(c.pageUrl)).text();
    expect(html.match(/signature valid/g)).toHaveLength(1);
    expect(html.match(/signature invalid/g)).toHaveLength(2);
    expect(html).toContain('<code>standardwebhooks</code> library');
    // Newest first.
    expect(html.indexOf('incident.note_added')).toBeLessThan(html.indexOf('incident.created'));
  });

  it('without the library, statuswatch\u2019s own verifier judges the same way, and the page says which checked', async () => {
    const c = await catcher({ checker: 'statuswatch' });
    const secret = generateWebhookSecret();
    c.trust(secret);
    expect(c.checker).toBe('statuswatch');
    expect(await deliver(c, secret, event('incident.created'))).toBe(204);
    expect(await deliver(c, secret, event('incident.resolved'), event('incident.resolved', { forged: true }))).toBe(401);
    expect(c.deliveries().map((d) => d.valid)).toEqual([true, false]);
    expect(await (await fetch(c.pageUrl)).text()).toContain(
      'statuswatch’s own verifier (used when the <code>standardwebhooks</code> library is not installed)',
    );
  });

  it('a delivery that comes before the secret waits for it, within a bound, and then is judged', async () => {
    const c = await catcher({ secretWaitMs: 5_000 });
    const secret = generateWebhookSecret();
    const early = deliver(c, secret, event('incident.created'));
    setTimeout(() => c.trust(secret), 100);
    expect(await early).toBe(204);
    const alone = await catcher({ secretWaitMs: 50 });
    expect(await deliver(alone, secret, event('incident.created'))).toBe(401);
    expect(alone.deliveries()[0]).toMatchObject({ valid: false, reason: 'the catcher holds no secret to check it with' });
  });

  it('shows what a sender controls escaped: body, type, id and the reason', async () => {
    const c = await catcher();
    const secret = generateWebhookSecret();
    c.trust(secret);
    await deliver(c, secret, JSON.stringify({ type: '<script>alert("type")</script>', data: { incident: { title: '<img src=x onerror=alert(1)>' } } }));
    await fetch(c.hookUrl, {
      method: 'POST',
      headers: { 'webhook-id': '<b>id</b>', 'webhook-timestamp': '<i>1</i>', 'webhook-signature': 'v1,<u>' },
      body: '<svg onload=alert(1)>',
    });
    const res = await fetch(c.pageUrl);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script|<img|<svg|<b>|<i>|<u>/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;type&quot;)&lt;/script&gt;');
    // The incident's title is shown as its own line, escaped like the rest.
    expect(html).toContain('<p class="about">&lt;img src=x onerror=alert(1)&gt;</p>');
    expect(html).toContain('<h2>(not JSON)</h2>');
    expect(html).toContain('<code>&lt;b&gt;id&lt;/b&gt;</code>');
  });

  it('keeps the newest deliveries within a count and a byte budget, and refuses an oversized body, keeping nothing of it', async () => {
    const counted = await catcher({ maxDeliveries: 3 });
    const secret = generateWebhookSecret();
    counted.trust(secret);
    for (let n = 1; n <= 5; n++) await deliver(counted, secret, event(`event.${n}`));
    expect(counted.deliveries().map((d) => JSON.parse(d.body).type)).toEqual(['event.3', 'event.4', 'event.5']);

    const sized = await catcher({ maxTotalBytes: 10_000, maxBodyBytes: 5_000 });
    sized.trust(secret);
    for (let n = 1; n <= 4; n++) await deliver(sized, secret, event(`big.${n}`, { pad: 'x'.repeat(3_000) }));
    // Four bodies of ~3 kB: only the newest three fit in 10 kB.
    expect(sized.deliveries().map((d) => JSON.parse(d.body).type)).toEqual(['big.2', 'big.3', 'big.4']);
    expect(await deliver(sized, secret, event('huge', { pad: 'y'.repeat(6_000) }))).toBe(413);
    expect(sized.deliveries()).toHaveLength(3);
    const html = await (await fetch(sized.pageUrl)).text();
    expect(html).not.toContain('big.1');
    expect(html).toContain('at most 10 kB in all');
    expect((await fetch(new URL('/other', sized.pageUrl))).status).toBe(404);
  });
});
