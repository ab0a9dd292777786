/**
 * The world most route and service tests stand in: one simulated vendor for the whole describe,
 * emptied and rid of its faults before each test, and per test a fresh app on it, pointed by its
 * settings at what it talks to besides the vendor (a webhook receiver, a workspace, the chat or
 * on-call simulators), which is started first and closed after the app. Tests whose archive is only
 * ever seeded take the same app on no feed at all. Call either inside a describe: it registers that
 * describe's hooks, and they fill the fields it returns.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Clock } from '../../src/core/ports.ts';
// Named as a test file names them ('../helpers/…'), not './…': the workers project swaps exactly
// these specifiers for their workerd stand-ins, so one fixture serves both runtimes.
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { type AdminPageClient, signInAdmin } from './admin-page-client.ts';
import { NO_FEED_URL } from './seed-archive.ts';

type Closable = { close(): Promise<void> };

export type TestAppWorld<Side extends Closable> = {
  /** What the app talks to besides the vendor, started before it. */
  side: Side;
  service: TestApp;
  /** The admin pages, signed in: only with `signIn`. */
  admin: AdminPageClient;
};

export type AppOnVendor<Side extends Closable> = TestAppWorld<Side> & { vendor: TestVendor };

export type AppSetup<Side extends Closable> = {
  /** Starts what the app talks to besides the vendor: nothing unless given. */
  side?: () => Promise<Side>;
  /** The app's settings, beyond the test defaults, from the side it talks to. */
  env: (side: Side) => Record<string, string>;
  clock?: Clock;
  signIn?: boolean;
};

/** Nothing besides the vendor. */
const NO_SIDE: Closable = { close: async () => {} };

export function useAppOnVendor<Side extends Closable = Closable>(
  setup: AppSetup<Side> & {
    /** A first poll of the empty vendor before each test, which must succeed: the archive is seeded, so what the vendor shows next is news. */
    firstPoll?: boolean;
  },
): AppOnVendor<Side> {
  const world = {} as AppOnVendor<Side>;
  beforeAll(async () => {
    // A window wide enough that no fixed date in a test's incidents falls out of it.
    world.vendor = await startTestVendor({ historyWindowDays: 100_000 });
  });
  afterAll(async () => {
    await world.vendor.close();
  });
  beforeEach(async () => {
    await world.vendor.setIncidents([]);
    await world.vendor.clearFaults();
  });
  useAppPerTest(world, () => world.vendor.url, setup);
  if (setup.firstPoll)
    beforeEach(async () => {
      expect((await world.service.poll()).outcome).toBe('ok');
    });
  return world;
}

/** The same app per test on no feed (NO_FEED_URL): for tests that seed its archive instead of polling. */
export function useAppWithoutFeed<Side extends Closable = Closable>(setup: AppSetup<Side>): TestAppWorld<Side> {
  return useAppPerTest({} as TestAppWorld<Side>, () => NO_FEED_URL, setup);
}

function useAppPerTest<Side extends Closable, World extends TestAppWorld<Side>>(world: World, statusUrl: () => string, setup: AppSetup<Side>): World {
  beforeEach(async () => {
    world.side = setup.side ? await setup.side() : (NO_SIDE as Side);
    world.service = await startTestApp(statusUrl(), { env: setup.env(world.side), clock: setup.clock });
    if (setup.signIn) world.admin = await signInAdmin(world.service);
  });
  afterEach(async () => {
    await world.service.close();
    await world.side.close();
  });
  return world;
}
