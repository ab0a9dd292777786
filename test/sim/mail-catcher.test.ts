/** The demo's mail catcher: real SMTP in (nodemailer), a page out that shows hostile mail inert, bounded. */
import { createTransport } from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { startMailCatcher, type RunningMailCatcher } from '../../src/sim/mail-catcher.ts';

const running: RunningMailCatcher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
});

async function catcher(options: Parameters<typeof startMailCatcher>[0] = {}): Promise<RunningMailCatcher> {
  const started = await startMailCatcher(options);
  running.push(started);
  return started;
}

function send(smtpUrl: string, mail: { from?: string; to?: string; subject: string; text: string }) {
  const transport = createTransport(smtpUrl);
  return transport.sendMail({ from: 'statuswatch <status@demo.localhost>', to: 'reader@example.com', ...mail }).finally(() => transport.close());
}

describe('mail catcher', () => {
  it('lists what arrived with every value escaped, and only http(s) URLs as links', async () => {
    const c = await catcher();
    await send(c.smtpUrl, {
      from: '"<img src=x onerror=alert(1)>" <evil@example.com>',
      subject: '<script>alert("subject")</script>',
      text: 'Confirm: https://status.example.com/subscribe/confirm?token=a&b=<c>. Or javascript:alert(1) <b>bold</b>',
    });
    const res = await fetch(c.pageUrl);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script|<img|<b>/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // The links in the mail (the page's own link to reload itself aside).
    const links = [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]).filter((href) => !href?.startsWith('/'));
    // The URL stops at "<" and loses its trailing full stop; "javascript:" stays text.
    expect(links).toEqual(['https://status.example.com/subscribe/confirm?token=a&amp;b=']);
    expect(html).toContain('reader@example.com');
  });

  it('keeps only the last N mails', async () => {
    const c = await catcher({ maxMails: 3 });
    for (let n = 1; n <= 5; n++) await send(c.smtpUrl, { subject: `mail number ${n}`, text: 'x' });
    expect(c.mails().map((m) => m.subject)).toEqual(['mail number 3', 'mail number 4', 'mail number 5']);
    const html = await (await fetch(c.pageUrl)).text();
    expect(html).not.toContain('mail number 2');
    expect(html.indexOf('mail number 5')).toBeLessThan(html.indexOf('mail number 3')); // newest first
  });

  it('keeps a 10-member group\u2019s sign-up mails without pushing out the mail before them', async () => {
    const c = await catcher();
    await send(c.smtpUrl, { to: 'new.user@example.com', subject: 'Confirm your subscription', text: 'x' });
    for (let n = 1; n <= 51; n++) await send(c.smtpUrl, { to: `member${n}@example.com`, subject: `Welcome, member ${n}`, text: 'x' });
    expect(c.mails()).toHaveLength(52);
    expect(c.mails()[0]!.subject).toBe('Confirm your subscription');
  }, 60_000);

  it('keeps the newest mails within a byte budget as well as a count, the oldest going first', async () => {
    const c = await catcher({ maxMails: 100, maxTotalBytes: 10_000 });
    for (let n = 1; n <= 6; n++) await send(c.smtpUrl, { subject: `mail number ${n}`, text: `${n}`.repeat(3_000) });
    // Six mails of ~3 kB each: only the newest three fit in 10 kB.
    expect(c.mails().map((m) => m.subject)).toEqual(['mail number 4', 'mail number 5', 'mail number 6']);
    const html = await (await fetch(c.pageUrl)).text();
    expect(html).not.toContain('mail number 3');
    expect(html).toContain('at most 10 kB in all');
  });

  it('filters by recipient through the page\u2019s form (a query parameter), any case, the filter escaped', async () => {
    const c = await catcher();
    await send(c.smtpUrl, { to: 'alice@example.com', subject: 'for alice', text: 'x' });
    await send(c.smtpUrl, { to: 'Bob <bob@example.com>', subject: 'for bob', text: 'x' });
    await send(c.smtpUrl, { to: 'alice@example.com', subject: 'for alice again', text: 'x' });
    const all = await (await fetch(c.pageUrl)).text();
    expect(all).toMatch(/<form method="get" action="\/"[^>]*><label>Recipient contains<input type="search" name="to" value=""/);
    const alice = await (await fetch(`${c.pageUrl}?to=ALICE%40example`)).text();
    expect(alice).toContain('for alice again');
    expect(alice).toContain('for alice</h2>');
    expect(alice).not.toContain('for bob');
    expect(alice).toContain('2 of 3 kept');
    expect(alice).toContain('name="to" value="ALICE@example"');
    const hostile = await (await fetch(`${c.pageUrl}?to=${encodeURIComponent('"><script>alert(1)</script>')}`)).text();
    expect(hostile).not.toMatch(/<script/i);
    expect(hostile).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(hostile).toContain('No mail kept to an address containing');
  });

  it('refuses a message over its size limit and keeps nothing of it', async () => {
    const c = await catcher({ maxMessageBytes: 2_000 });
    await expect(send(c.smtpUrl, { subject: 'big', text: 'y'.repeat(10_000) })).rejects.toMatchObject({ responseCode: 552 });
    expect(c.mails()).toHaveLength(0);
    expect((await fetch(new URL('/other', c.pageUrl))).status).toBe(404);
  });

  it('reloads itself only when the reader asks, and the link to stop keeps the recipient filter', async () => {
    const c = await catcher();
    const still = await (await fetch(c.pageUrl)).text();
    expect(still).not.toContain('http-equiv="refresh"');
    expect(still).toContain('<a href="/?reload=on">Reload this page every 5 s</a>');

    const watching = await (await fetch(new URL('/?to=reader%40example.com&reload=on', c.pageUrl))).text();
    expect(watching).toContain('<meta http-equiv="refresh" content="5">');
    expect(watching).toContain('This page reloads every 5 s: <a href="/?to=reader%40example.com">stop reloading</a>.');
    // Filtering again while watching keeps watching.
    expect(watching).toContain('<input type="hidden" name="reload" value="on">');
  });
});
