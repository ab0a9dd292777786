/**
 * The world most route and service tests stand in: one simulated vendor for the whole describe,
 * emptied and rid of its faults before each test, and per test a fresh app on it, pointed by its
 * settings at what it talks to besides the vendor (a webhook receiver, a workspace, the chat or
 * on-call simulators), which is started first and closed after the app. Call it inside a describe:
 * it registers that describe's hooks, and they fill the fields it returns.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
// Named as a test file names them ('../helpers/…'), not './…': the workers project swaps exactly
// these specifiers for their workerd stand-ins, so one fixture serves both runtimes.
import type { Clock } from '../../src/core/ports.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { type AdminPageClient, signInAdmin } from './admin-page-client.ts';

type Closable = { close(): Promise<void> };

export type AppOnVendor<Side extends Closable> = {
  vendor: TestVendor;
  /** What the app talks to besides the vendor, started before it. */
  side: Side;
  service: TestApp;
  /** The admin pages, signed in: only with `signIn`. */
  admin: AdminPageClient;
};

/** Nothing besides the vendor. */
const NO_SIDE: Closable = { close: async () => {} };

export function useAppOnVendor<Side extends Closable = Closable>(setup: {
  /** Starts what the app talks to besides the vendor: nothing unless given. */
  side?: () => Promise<Side>;
  /** The app's settings, beyond the test defaults, from the side it talks to. */
  env: (side: Side) => Record<string, string>;
  clock?: Clock;
  /** A first poll of the empty vendor before each test, which must succeed: the archive is seeded, so what the vendor shows next is news. */
  firstPoll?: boolean;
  signIn?: boolean;
}): AppOnVendor<Side> {
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
    world.side = setup.side ? await setup.side() : (NO_SIDE as Side);
    world.service = await startTestApp(world.vendor.url, { env: setup.env(world.side), clock: setup.clock });
    if (setup.firstPoll) expect((await world.service.poll()).outcome).toBe('ok');
    if (setup.signIn) world.admin = await signInAdmin(world.service);
  });
  afterEach(async () => {
    await world.service.close();
    await world.side.close();
  });
  return world;
}
