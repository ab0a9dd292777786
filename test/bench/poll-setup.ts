/**
 * The poll benchmark's world: an archive seeded through the real store, the simulated vendor serving
 * the newest of those incidents over loopback, and pollers wired as src/entry/node.ts wires them.
 */
import { randomUUID } from 'node:crypto';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { nodeHashes } from '../../src/adapters/node-hashes.ts';
import { createPoller, type Poller } from '../../src/app/poller.ts';
import { parseConfig } from '../../src/config.ts';
import type { Clock } from '../../src/core/ports.ts';
import { USER_AGENT } from '../../src/entry/node.ts';
import type { Scenario } from '../../src/sim/scenario.ts';
import { startSimulatedVendor, type RunningSimulatedVendor } from '../../src/sim/server.ts';
import type { SimIncident } from '../../src/sim/world.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { silentLogger } from './harness.ts';
import { seedThroughStore } from './seed.ts';
import { timed } from './stats.ts';
import { DAY_MS, syntheticIncidents, toIncidents, YEAR_MS } from './synthetic.ts';

export type PollSetupOptions = {
  archiveIncidents: number;
  /** The newest this many make up the feed's history (the real one holds about 120). */
  feedIncidents: number;
  /** Still going on, so v2 current lists them. */
  activeIncidents: number;
  seedChunk: number;
};

export type PollWorld = {
  archive: TempArchive;
  /** Full 200 bodies on every request: a fair comparison with a bare fetch. */
  vendor: RunningSimulatedVendor;
  seedMs: number;
  /** A poller against `vendorUrl`, with its own feed client (and so its own ETag cache). */
  newPoller(vendorUrl: string): Poller;
  /** Another simulated vendor serving the same incidents; the caller closes it. */
  startVendor(options: { conditional: boolean; incidents: readonly SimIncident[] }): Promise<RunningSimulatedVendor>;
  close(): Promise<void>;
};

/** No steps: the benchmark edits the world in-process between polls. */
const EMPTY_SCENARIO: Scenario = { name: 'bench', initialWorld: () => [], steps: [], loop: false };
const HISTORY_WINDOW_DAYS = 20 * 366;
const systemClock: Clock = { now: () => Date.now() };

export async function setUpPollWorld(options: PollSetupOptions): Promise<PollWorld> {
  const nowMs = Date.now();
  // Ten years up to yesterday: the newest ~120 fall well inside the sim's 183-day history window.
  const sims = syntheticIncidents({
    count: options.archiveIncidents,
    endMs: nowMs - DAY_MS,
    spanMs: 10 * YEAR_MS,
    active: options.activeIncidents,
    seed: 10,
  });
  const archive = openTempArchive(tempDir('statuswatch-bench-poll-'));
  const opened: RunningSimulatedVendor[] = [];
  try {
    const { ms: seedMs } = await timed(() => seedThroughStore(archive.store, toIncidents(sims), nowMs, options.seedChunk));

    const startVendor: PollWorld['startVendor'] = async ({ conditional, incidents }) => {
      // The feed is exactly the incidents given: a quick run's sparser archive would otherwise push
      // some of them out of the sim's 183-day history window.
      const vendor = await startSimulatedVendor({
        host: '127.0.0.1',
        port: 0,
        scenario: EMPTY_SCENARIO,
        conditional,
        historyWindowDays: HISTORY_WINDOW_DAYS,
      });
      opened.push(vendor);
      vendor.vendor.setIncidents(incidents);
      return vendor;
    };
    const vendor = await startVendor({ conditional: false, incidents: sims.slice(-options.feedIncidents) });

    return {
      archive,
      vendor,
      seedMs,
      startVendor,
      newPoller(vendorUrl) {
        const config = parseConfig({ STATUS_URL: vendorUrl });
        const feed = createFetchFeedClient({
          baseUrl: config.STATUS_URL,
          timeoutMs: config.POLL_TIMEOUT_MS,
          maxBytes: config.FEED_MAX_BYTES,
          userAgent: USER_AGENT,
          clock: systemClock,
        });
        return createPoller({
          store: archive.store,
          feed,
          clock: systemClock,
          logger: silentLogger,
          instanceId: `bench:${process.pid}:${randomUUID().slice(0, 8)}`,
          newId: randomUUID,
          hashes: nodeHashes,
        });
      },
      async close() {
        await Promise.all(opened.map((v) => v.close()));
        archive.remove();
      },
    };
  } catch (error) {
    await Promise.all(opened.map((v) => v.close()));
    archive.remove();
    throw error;
  }
}
