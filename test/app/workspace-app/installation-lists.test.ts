/**
 * The installations every face lists, over a real SQLite archive: the admin API and the admin page
 * show every installation, newest first and bounded; what can post (the subscription form's choice)
 * is the active ones among them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeInstallations, INSTALLATIONS_LIST_MAX, listInstallations } from '../../../src/app/workspace-app/installation-lists.ts';
import type { NewInstallation, Store } from '../../../src/core/ports.ts';
import { appFaces } from '../../helpers/app-faces.ts';
import { openTempArchive, type TempArchive } from '../../helpers/temp-archive.ts';

const T0 = Date.UTC(2026, 5, 1);

const install = (n: number): NewInstallation => ({
  id: `inst-${n}`,
  teamId: `T${String(n).padStart(4, '0')}`,
  teamName: null,
  botUserId: 'U0BOT',
  scopes: ['chat:write'],
  accessTokenSealed: `sealed-access-${n}`,
  refreshTokenSealed: `sealed-refresh-${n}`,
  accessExpiresAt: T0 + 43_200_000,
});

/** Five installations, inst-0 the oldest: inst-1 uninstalled, inst-3 broken, the rest active. */
async function fiveInstallations(store: Store): Promise<void> {
  for (let n = 0; n < 5; n++) await store.saveInstallation(install(n), T0 + n);
  await store.markUninstalled('inst-1', 'app_uninstalled', T0 + 10);
  await store.markBroken('inst-3', 'invalid_refresh_token', T0 + 11);
}

describe('the installations every face lists', () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  it('lists every installation, newest first; the active ones are those that can post', async () => {
    await fiveInstallations(archive.store);
    expect((await listInstallations(archive)).map((i) => i.id)).toEqual(['inst-4', 'inst-3', 'inst-2', 'inst-1', 'inst-0']);
    expect((await activeInstallations(archive)).map((i) => i.id)).toEqual(['inst-4', 'inst-2', 'inst-0']);
  });

  it('reads at most INSTALLATIONS_LIST_MAX, the newest', async () => {
    for (let n = 0; n <= INSTALLATIONS_LIST_MAX; n++) await archive.store.saveInstallation(install(n), T0 + n);
    const listed = await listInstallations(archive);
    expect(listed).toHaveLength(INSTALLATIONS_LIST_MAX);
    expect(listed[0]?.id).toBe(`inst-${INSTALLATIONS_LIST_MAX}`);
    expect(listed.at(-1)?.id).toBe('inst-1');
  });

  it('the admin API and the admin page show the same installations in the same order', async () => {
    await fiveInstallations(archive.store);
    const faces = await appFaces(archive);
    const { status, body } = await faces.api<{ installations: { team_id: string }[] }>('/api/app/installations');
    expect(status).toBe(200);
    const page = await faces.admin.get('/admin/app');
    expect(page.status).toBe(200);
    const shown = [...page.html.matchAll(/<th scope="row">Workspace (T\d{4}) \(name unknown\)/g)].map((m) => m[1]);
    expect(body.installations.map((i) => i.team_id)).toEqual(['T0004', 'T0003', 'T0002', 'T0001', 'T0000']);
    expect(shown).toEqual(body.installations.map((i) => i.team_id));
  });
});
