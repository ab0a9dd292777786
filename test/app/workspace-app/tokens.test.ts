/**
 * Token rotation against the simulated Web API over real HTTP, with real SQLite files and the real
 * secret box: racing processes never spend a refresh token twice nor call with an
 * expired token, a crash between the vendor's answer and our write recovers inside the grace
 * period, and a refused refresh token marks the installation broken.
 */
import { describe, expect, it } from 'vitest';
import { createWebApiClient } from '../../../src/adapters/web-api-client.ts';
import { createSqliteStore } from '../../../src/adapters/sqlite-store.ts';
import { createAppTokens, InstallationUnavailableError, type AppTokens } from '../../../src/app/workspace-app/tokens.ts';
import { WebApiError } from '../../../src/core/errors.ts';
import type { InstallationRecord, InstallationStore } from '../../../src/core/ports.ts';
import { createSecretBox, generateSecretKey, type SecretBox } from '../../../src/core/secret-box.ts';
import type { RotationSettings } from '../../../src/core/workspace-app/token-rotation.ts';
import { openSqliteArchive } from '../../../src/entry/open-sqlite.ts';
import { openTempArchive } from '../../helpers/temp-archive.ts';
import { startWebApi, type WebApiClient } from '../../sim/web-api-helpers.ts';

const clock = { now: () => Date.now() };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One process's view: its own connection to the shared file, its own client and use case. */
function processOn(
  path: string,
  api: WebApiClient,
  box: SecretBox,
  rotation: RotationSettings,
  wrap = (s: InstallationStore) => s,
  onBroken?: (installation: InstallationRecord) => Promise<void>,
) {
  const archive = openSqliteArchive(path);
  const store = wrap(createSqliteStore(archive.connection));
  const webApi = createWebApiClient({ baseUrl: api.url, clientId: api.clientId, clientSecret: api.clientSecret, timeoutMs: 2_000 });
  return { store, tokens: createAppTokens({ store, webApi, box, clock, rotation, sleep, onBroken }), close: () => archive.close() };
}

/** A process that dies between the vendor's answer to a refresh and its write of the new pair. */
const crashAfterAnswer = (store: InstallationStore): InstallationStore => ({
  ...store,
  swapTokens: async () => {
    throw new Error('crashed after the vendor answered');
  },
});

async function authTest(api: WebApiClient, token: string) {
  return (await api.form('auth.test', {}, token)).body;
}

describe('app tokens against the simulated Web API', () => {
  it('two processes racing over many 2-second lifetimes never reuse a refresh token nor call with an expired one', async () => {
    const api = await startWebApi({ settings: { accessTokenLifetimeSeconds: 2 } });
    const ws = await api.workspace();
    const box = await createSecretBox(generateSecretKey());
    const archive = openTempArchive();
    const rotation = { refreshAheadMs: 800, claimTtlMs: 3_000 };
    const a = processOn(archive.path, api, box, rotation);
    const b = processOn(archive.path, api, box, rotation);
    try {
      const installed = await a.tokens.installFromToken(ws.token);
      expect(installed).toMatchObject({ teamId: ws.teamId, state: 'active' });
      // Sealed at rest: neither token's plaintext is in the row.
      expect(JSON.stringify(installed)).not.toContain('xoxe.');

      const until = Date.now() + 7_000;
      const worker = async (tokens: AppTokens) => {
        let calls = 0;
        while (Date.now() < until) {
          const token = await tokens.accessToken(installed.id);
          expect(await authTest(api, token)).toMatchObject({ ok: true, team_id: ws.teamId });
          calls++;
          await sleep(40);
        }
        return calls;
      };
      const calls = await Promise.all([worker(a.tokens), worker(b.tokens), worker(a.tokens), worker(b.tokens)]);
      expect(calls.every((n) => n > 10)).toBe(true);

      const summary = (await api.control('GET', `/workspaces/${ws.teamId}`)).body as { stats: { refreshes: number }; activeTokens: { expiring: boolean }[] };
      expect(await api.misuse(ws.teamId)).toMatchObject({ total: 0 });
      // 7 s of 2-second tokens refreshed 0.8 s ahead: at least four rotations, and never two of
      // them for one refresh token (that would be a reuse above).
      expect(summary.stats.refreshes).toBeGreaterThanOrEqual(4);
      // The vendor's limit: at most two active expiring tokens after repeated refreshes.
      expect(summary.activeTokens.filter((t) => t.expiring).length).toBeLessThanOrEqual(2);
    } finally {
      a.close();
      b.close();
      archive.remove();
    }
  }, 30_000);

  it('a crash between the vendor answer and our write recovers in a fresh process inside the grace period', async () => {
    const api = await startWebApi({ settings: { accessTokenLifetimeSeconds: 1, refreshGraceMs: 10_000 } });
    const ws = await api.workspace();
    const box = await createSecretBox(generateSecretKey());
    const archive = openTempArchive();
    const rotation = { refreshAheadMs: 200, claimTtlMs: 1_500 };
    // The crashing process: the vendor has answered, and our write never happens.
    const crashing = processOn(archive.path, api, box, rotation, crashAfterAnswer);
    try {
      const installed = await crashing.tokens.installFromToken(ws.token);
      await sleep(1_100);
      await expect(crashing.tokens.accessToken(installed.id)).rejects.toThrow('crashed after the vendor answered');
      crashing.close();

      const fresh = processOn(archive.path, api, box, rotation);
      try {
        const started = Date.now();
        const token = await fresh.tokens.accessToken(installed.id);
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(await authTest(api, token)).toMatchObject({ ok: true });
        // The same refresh token was spent once more, inside grace; never after it.
        expect(await api.misuse(ws.teamId)).toMatchObject({ refreshReusedInGrace: 1, refreshReusedAfterGrace: 0, expiredTokenCalls: 0 });
        // And the pair it got is the one in use from now on.
        expect(await fresh.tokens.accessToken(installed.id)).toBe(token);
      } finally {
        fresh.close();
      }
    } finally {
      archive.remove();
    }
  }, 30_000);

  it('while a crashed claim is live the stored token is not handed out: the recovery revokes it', async () => {
    const api = await startWebApi({ settings: { accessTokenLifetimeSeconds: 4, refreshGraceMs: 10_000 } });
    const ws = await api.workspace();
    const box = await createSecretBox(generateSecretKey());
    const archive = openTempArchive();
    const rotation = { refreshAheadMs: 2_000, claimTtlMs: 1_000 };
    const crashing = processOn(archive.path, api, box, rotation, crashAfterAnswer);
    const other = processOn(archive.path, api, box, rotation);
    const recovering = processOn(archive.path, api, box, rotation);
    try {
      const installed = await crashing.tokens.installFromToken(ws.token);
      await sleep(2_050);
      // The vendor has issued a second pair, and our write of it never happens: the claim stays.
      await expect(crashing.tokens.accessToken(installed.id)).rejects.toThrow('crashed after the vendor answered');
      // Another process wants the token while that claim is live: the stored one has not run out.
      const held = await other.tokens.accessToken(installed.id);
      // The claim lapses, and a process recovers: the same refresh token once more, inside grace,
      // makes a third active token, and the vendor revokes the oldest: the one that was stored.
      await sleep(1_050);
      const recovered = await recovering.tokens.accessToken(installed.id);
      expect(await authTest(api, recovered)).toMatchObject({ ok: true });
      expect(await authTest(api, held)).toMatchObject({ ok: true });
      expect(await api.misuse(ws.teamId)).toMatchObject({ refreshReusedInGrace: 1, revokedTokenCalls: 0, expiredTokenCalls: 0 });
    } finally {
      crashing.close();
      other.close();
      recovering.close();
      archive.remove();
    }
  }, 30_000);

  it('a refused refresh token marks the installation broken, with the reason, and stops handing out tokens', async () => {
    const api = await startWebApi({ settings: { refreshGraceMs: 0 } });
    const ws = await api.workspace();
    const box = await createSecretBox(generateSecretKey());
    const archive = openTempArchive();
    const p = processOn(archive.path, api, box, { refreshAheadMs: 1_000, claimTtlMs: 2_000 });
    try {
      const installed = await p.tokens.installFromToken(ws.token);
      // Someone else spends our refresh token (a leaked copy): the vendor refuses ours from now on.
      const stolen = await box.open(installed.refreshTokenSealed ?? '');
      expect((await api.refresh(stolen)).body).toMatchObject({ ok: true });
      await sleep(20);
      const current = await p.tokens.accessToken(installed.id);
      // The vendor says the token expired: refreshed once, and refused.
      const refused = await p.tokens.accessToken(installed.id, { rejected: current }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InstallationUnavailableError);
      expect(refused).toMatchObject({ state: 'broken', reason: 'invalid_refresh_token' });
      expect(await p.store.findInstallation(installed.id)).toMatchObject({ state: 'broken', reason: 'invalid_refresh_token' });
      await expect(p.tokens.accessToken(installed.id)).rejects.toMatchObject({ state: 'broken' });
    } finally {
      p.close();
      archive.remove();
    }
  });

  it('tells the admin once when the grant is gone, however many processes find out', async () => {
    const api = await startWebApi({ settings: { refreshGraceMs: 0 } });
    const ws = await api.workspace();
    const box = await createSecretBox(generateSecretKey());
    const archive = openTempArchive();
    const told: InstallationRecord[] = [];
    const onBroken = async (installation: InstallationRecord) => {
      told.push(installation);
    };
    const rotation = { refreshAheadMs: 1_000, claimTtlMs: 2_000 };
    const processes = [0, 1, 2].map(() => processOn(archive.path, api, box, rotation, undefined, onBroken));
    try {
      const installed = await processes[0]!.tokens.installFromToken(ws.token);
      // Every process hears the vendor refuse a call (the app was removed on the vendor's side).
      const reported = await Promise.all(
        processes.flatMap((p) => [p.tokens.reportVendorError(installed.id, 'token_revoked'), p.tokens.reportVendorError(installed.id, 'token_revoked')]),
      );
      expect(reported.every(Boolean)).toBe(true);
      expect(told).toHaveLength(1);
      expect(told[0]).toMatchObject({ id: installed.id, state: 'broken', reason: 'token_revoked' });
      expect(JSON.stringify(told[0])).not.toMatch(/xox/);
      // A code that says nothing about the grant changes nothing.
      expect(await processes[1]!.tokens.reportVendorError(installed.id, 'channel_not_found')).toBe(false);

      // Re-installed, then the vendor says it was uninstalled: tokens removed, told once more.
      const minted = await api.control('POST', `/workspaces/${ws.teamId}/tokens`, {});
      await processes[0]!.tokens.installFromToken(minted.body.token as string);
      expect(await processes[0]!.store.findInstallation(installed.id)).toMatchObject({ state: 'active' });
      await Promise.all(processes.map((p) => p.tokens.reportVendorError(installed.id, 'app_uninstalled')));
      expect(told).toHaveLength(2);
      expect(await processes[2]!.store.findInstallation(installed.id)).toMatchObject({
        state: 'uninstalled',
        accessTokenSealed: null,
        refreshTokenSealed: null,
      });
    } finally {
      for (const p of processes) p.close();
      archive.remove();
    }
  });

  it('refuses a second install from the same long-lived token, saying why', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const box = await createSecretBox(generateSecretKey());
    const archive = openTempArchive();
    const p = processOn(archive.path, api, box, { refreshAheadMs: 1_000, claimTtlMs: 2_000 });
    try {
      await p.tokens.installFromToken(ws.token);
      const again = await p.tokens.installFromToken(ws.token).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(WebApiError);
      expect(again).toMatchObject({ code: 'token_already_exchanged', retryable: false });
      expect((await p.store.listInstallations(10)).length).toBe(1);
    } finally {
      p.close();
      archive.remove();
    }
  });
});
