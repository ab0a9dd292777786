/** The vendor's own endpoints, served from our archive: existing clients can point at us instead. */
import { Hono } from 'hono';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { feedKnowledge } from '../../app/feed-knowledge.ts';
import { renderCurrentV1, renderCurrentV2, V1_RECENT_WINDOW_MS } from '../../core/mirror.ts';
import { toVendorIncident } from '../../core/vendor-format.ts';
import { toIsoUtc } from '../../core/vendor-time.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveQueries } from '../../core/ports.ts';

/** The vendor keeps about six months of history; the mirror shows the same window. */
export const MIRROR_HISTORY_DAYS = 183;
const MIRROR_HISTORY_MAX = 1000;

export type MirrorRouteDeps = Pick<AppDeps, 'clock'> & { store: ArchiveQueries };

export function mirrorRoutes({ store, clock }: MirrorRouteDeps) {
  const app = new Hono();

  /** Whether the feed was read within the staleness limit: blind, `status` is never `ok`. */
  const known = async (now: number) => (await feedKnowledge({ store }, now)).knowledge.kind === 'known';

  app.get('/api/v2.0.0/current', async (c) => {
    const now = clock.now();
    const [ongoing, latest, { health, knowledge: state }] = await Promise.all([
      // The vendor's own API, mirrored: its incidents alone, never another source's.
      store.ongoingIncidents(MAIN_FEED_SOURCE),
      store.latestCreatedIncident(),
      feedKnowledge({ store }, now),
    ]);
    // Two fields the vendor's format lacks, added after its own, as /widget.json has them: while the
    // latest reads fail, `status` is as of `last_read_at`.
    return c.json({
      ...renderCurrentV2(ongoing, latest, now, state.kind === 'known'),
      reads_failing: state.kind === 'known' && state.readsFailing,
      last_read_at: health.lastSuccessAt === null ? null : toIsoUtc(health.lastSuccessAt),
    });
  });

  const v1Current = async () => {
    const now = clock.now();
    const [ongoing, recent, latest, isKnown] = await Promise.all([
      // The vendor's own API, mirrored: its incidents alone, never another source's.
      store.ongoingIncidents(MAIN_FEED_SOURCE),
      store.incidentsUpdatedSince(now - V1_RECENT_WINDOW_MS, 1),
      store.latestCreatedIncident(),
      known(now),
    ]);
    return renderCurrentV1(ongoing, recent[0] ?? null, latest, now, isKnown);
  };
  app.get('/api/v1.0.0/current', async (c) => c.json(await v1Current()));
  // No version in the path means v1, as on the vendor.
  app.get('/api/current', async (c) => c.json(await v1Current()));

  const history = async () => {
    const since = clock.now() - MIRROR_HISTORY_DAYS * 86_400_000;
    return (await store.incidentsUpdatedSince(since, MIRROR_HISTORY_MAX)).map(toVendorIncident);
  };
  app.get('/api/v2.0.0/history', async (c) => c.json(await history()));
  app.get('/api/v1.0.0/history', async (c) => c.json(await history()));
  app.get('/api/history', async (c) => c.json(await history()));

  return app;
}
