/**
 * The simulated channel page shows the app's "Updated" time in the viewer's zone: the page's own
 * script (allowed by its nonce, nothing else) renders the date token in Chromium's time zone.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebApi } from '../sim/web-api-helpers.ts';
import { launchBrowser, watchedPage } from './helpers.ts';

describe('date tokens on the simulated channel page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('reads 21:52 in Los Angeles and 14:52 in Tokyo for the same message, with no policy violation', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    // 2026-11-26T21:52:11-08:00 as the app posts it.
    const blocks = [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'Updated <!date^1795758731^{date_short} at {time}|2026-11-27 05:52 UTC>' }] }];
    await api.form('chat.postMessage', { channel, blocks: JSON.stringify(blocks) }, ws.token);
    const seen: Record<string, string> = {};
    for (const timezoneId of ['America/Los_Angeles', 'Asia/Tokyo']) {
      const { context, page, problems } = await watchedPage(browser, { timezoneId });
      await page.goto(`${api.url}/channels/${channel}`);
      const time = page.locator('time[data-date-format]');
      await expect.poll(() => time.getAttribute('data-zone')).toBe('local');
      seen[timezoneId] = (await time.textContent()) ?? '';
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
      await context.close();
    }
    expect(seen).toEqual({ 'America/Los_Angeles': 'Nov 26, 2026 at 9:52 PM', 'Asia/Tokyo': 'Nov 27, 2026 at 2:52 PM' });
  });
});
