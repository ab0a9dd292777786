/**
 * Installing the workspace app in real Chromium, against the real Node entry and the
 * simulated Web API: "Add to workspace" goes to the vendor and back across sites (localhost and
 * 127.0.0.1), so the admin session's SameSite=Strict cookie stays behind and the install cookie
 * must carry the state's binding; the pasted-token form; uninstall. No CSP violation on the way.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startWebApi, type WebApiClient } from '../sim/web-api-helpers.ts';
import { freePort, launchBrowser, screenshot, watchedPage, type WatchedPage } from './helpers.ts';

describe('the workspace app page in Chromium', () => {
  let vendor: TestVendor;
  let sim: WebApiClient;
  let service: TestService;
  let browser: Browser;
  let publicUrl: string;
  let current: WatchedPage | undefined;

  beforeAll(async () => {
    vendor = await startTestVendor();
    sim = await startWebApi();
    const port = await freePort();
    // Another site than the vendor's 127.0.0.1: the way back from the vendor is a cross-site redirect.
    publicUrl = `http://localhost:${port}`;
    service = await startTestService(vendor.url, {
      env: { PORT: String(port), PUBLIC_URL: publicUrl, APP_API_URL: sim.url, APP_CLIENT_ID: sim.clientId, APP_CLIENT_SECRET: sim.clientSecret },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await vendor?.close();
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  it('installs through the vendor and back, installs from a pasted token once, and uninstalls', async () => {
    const oauth = await sim.workspace({ name: 'Acme', teamId: 'TACME01', installed: false });
    const pasted = await sim.workspace({ name: 'Beta', teamId: 'TBETA01' });
    current = await watchedPage(browser);
    const { page, problems } = current;

    await page.goto(`${publicUrl}/admin/app`, { waitUntil: 'load' });
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await Promise.all([page.waitForURL(`${publicUrl}/admin/app`), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Workspace app');

    await Promise.all([page.waitForURL(`${publicUrl}/admin/app?done=installed`), page.getByRole('link', { name: 'Add to workspace' }).click()]);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Installed');
    const table = page.getByRole('table');
    expect(await table.textContent()).toContain(oauth.teamId);
    expect(await table.textContent()).toContain('chat:write');

    await page.getByLabel('Bot token').fill(pasted.token);
    await Promise.all([page.waitForURL(`${publicUrl}/admin/app?done=installed`), page.getByRole('button', { name: 'Install with this token' }).click()]);
    expect(await page.getByRole('table').textContent()).toContain(pasted.teamId);
    await screenshot(page, 'admin-app-installed');

    // The same token again: said plainly, and the field comes back empty.
    await page.getByLabel('Bot token').fill(pasted.token);
    await page.getByRole('button', { name: 'Install with this token' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('exchanged before');
    expect(await page.getByLabel('Bot token').inputValue()).toBe('');
    expect(await page.content()).not.toContain(pasted.token);

    await page.goto(`${publicUrl}/admin/app`, { waitUntil: 'load' });
    const row = page.getByRole('row').filter({ hasText: pasted.teamId });
    await Promise.all([page.waitForURL(`${publicUrl}/admin/app?done=uninstalled`), row.getByRole('button', { name: 'Uninstall' }).click()]);
    expect(await page.getByRole('row').filter({ hasText: pasted.teamId }).textContent()).toContain('Uninstalled');
    expect((await sim.control('GET', `/workspaces/${pasted.teamId}`)).body.status).toBe('uninstalled');

    // The only error is the refused second exchange's own status (409), which Chromium logs.
    expect(problems.consoleErrors).toEqual([expect.stringContaining('status of 409 (Conflict)')]);
    expect({ ...problems, consoleErrors: [] }).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });
});
