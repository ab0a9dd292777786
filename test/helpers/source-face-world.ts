/**
 * The world of the tests of a watched page's faces (both projects: a SQLite file on Node, D1 in
 * workerd; real HTTP on loopback): the simulated vendor with its incidents, the app on a clock the
 * test moves, its main feed polled once, and one simulated page in the Statuspage format added as
 * a source. Called inside a `describe`, it starts the world before its tests and closes it after.
 */
import { afterAll, beforeAll } from 'vitest';
import type { ComponentState } from '../../src/core/statuspage/mapping.ts';
import type { RawIncident } from '../fixtures/vendor-builders.ts';
// Spelt as a test file spells them: the workers project swaps these for its workerd stand-ins by
// that spelling (vitest.config.ts, WORKERS_HARNESS).
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';

export type SourceFaceWorld = {
  vendor: TestVendor;
  page: TestStatuspage;
  service: TestApp;
  sourceId: string;
  /** The app's clock (epoch ms), which the test moves forward. */
  nowMs: number;
  /** GETs a path a second and a half on: a poll's result reaches the cached answers within one (page-cache.ts). */
  get(path: string): Promise<{ status: number; type: string; text: string }>;
  /** Leaves the page's components and a good read `readAgoMs` before now, as a poll that read them would. */
  pageReads(components: readonly ComponentState[], readAgoMs?: number): Promise<void>;
};

export function useSourceFaceWorld(options: { pageName: string; vendorIncidents: RawIncident[] }): SourceFaceWorld {
  const world = { nowMs: Date.now() } as SourceFaceWorld;
  world.get = async (path) => {
    world.nowMs += 1_500;
    const res = await world.service.fetch(world.service.url + path);
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };
  world.pageReads = async (components, readAgoMs = 0) => {
    const { service, sourceId } = world;
    await service.store.saveComponentStates(sourceId, components, world.nowMs - readAgoMs);
    const source = await service.store.getSource(sourceId);
    await service.store.savePollState(sourceId, { ...source!.poll, lastSuccessAt: world.nowMs - readAgoMs, consecutiveFailures: 0 });
  };

  beforeAll(async () => {
    world.vendor = await startTestVendor();
    await world.vendor.setIncidents(options.vendorIncidents);
    world.page = await startTestStatuspage({ name: options.pageName });
    world.service = await startTestApp(world.vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: { now: () => world.nowMs } });
    await world.service.poll();
    world.sourceId = (await world.service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: world.page.url })).body.source.id;
  });
  afterAll(async () => {
    await world.service?.close();
    await Promise.all([world.vendor?.close(), world.page?.close()]);
  });
  return world;
}
