/**
 * Our archive in the vendor's own `current` formats, so existing clients can point at statuswatch.
 * v1 shows one incident: the most urgent ongoing one by URGENCY below, else one updated within the
 * last hour, else the terse ok.
 */
import type { Incident } from './incident.ts';
import { toVendorIncident, type VendorIncidentJson } from './vendor-format.ts';
import { toIsoSeconds } from './vendor-time.ts';

export const V1_RECENT_WINDOW_MS = 60 * 60_000;

/**
 * The documented ranking for v1 (the vendor's own is internal): outage before incident before
 * notice before anything else; then active before other ongoing statuses (scheduled...); then more
 * services affected; then the most recently updated; then the highest id.
 */
export function compareUrgency(a: Incident, b: Incident): number {
  return (
    typeRank(a.type) - typeRank(b.type) ||
    statusRank(a.status) - statusRank(b.status) ||
    b.services.length - a.services.length ||
    b.dateUpdated.ms - a.dateUpdated.ms ||
    b.id.localeCompare(a.id, 'en', { numeric: true })
  );
}

const typeRank = (type: string) => ({ outage: 0, incident: 1, notice: 2 })[type] ?? 3;
const statusRank = (status: string) => (status === 'active' ? 0 : 1);

/**
 * The top-level status while statuswatch cannot read the vendor's feed (knowledge.ts): the format
 * makes `status` a string, documented as `ok` or `active` here. Neither is true when we do not
 * know, and a client that checks for `ok` must not find it; `active_incidents` then lists what we
 * last knew of.
 */
export const MIRROR_UNKNOWN_STATUS = 'unknown';

export type CurrentV2Json = {
  status: 'ok' | 'active' | typeof MIRROR_UNKNOWN_STATUS;
  date_created: string;
  date_updated: string;
  active_incidents: VendorIncidentJson[];
};

/**
 * v2 current. Top-level dates as the real feed sets them: those of the most recently updated
 * active incident, or when all is well those of the latest incident.
 */
export function renderCurrentV2(ongoing: readonly Incident[], latest: Incident | null, now: number, known = true): CurrentV2Json {
  const byUpdate = [...ongoing].sort((a, b) => b.dateUpdated.ms - a.dateUpdated.ms);
  const datesFrom = byUpdate[0] ?? latest;
  return {
    status: !known ? MIRROR_UNKNOWN_STATUS : ongoing.length > 0 ? 'active' : 'ok',
    date_created: datesFrom?.dateCreated.raw ?? toIsoSeconds(now),
    date_updated: datesFrom?.dateUpdated.raw ?? toIsoSeconds(now),
    active_incidents: byUpdate.map(toVendorIncident),
  };
}

/**
 * v1 current: one flat incident with its id as a string, as v1 sent it, or the terse ok. Blind
 * (`known` false), the most urgent ongoing incident we last knew of is still shown (its status is
 * not "ok"); with none, the terse form says `unknown` instead of `ok`.
 */
export function renderCurrentV1(
  ongoing: readonly Incident[],
  recentlyUpdated: Incident | null,
  latest: Incident | null,
  now: number,
  known = true,
):
  | (Omit<VendorIncidentJson, 'id'> & { id: string })
  | { status: 'ok' | typeof MIRROR_UNKNOWN_STATUS; date_created: string; date_updated: string; active_incidents: [] } {
  const shown = [...ongoing].sort(compareUrgency)[0] ?? (known ? recentlyUpdated : null);
  if (shown) return { ...toVendorIncident(shown), id: shown.id };
  return {
    status: known ? 'ok' : MIRROR_UNKNOWN_STATUS,
    date_created: latest?.dateCreated.raw ?? toIsoSeconds(now),
    date_updated: latest?.dateUpdated.raw ?? toIsoSeconds(now),
    active_incidents: [],
  };
}
