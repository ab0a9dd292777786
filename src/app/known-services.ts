/**
 * The known service names for the routes that check a `service` parameter or filter: read once per
 * archive generation and shared by every route of the same store.
 */
import { ApiError } from '../core/errors.ts';
import { KNOWN_SERVICES_MAX, mergeKnownServices, unknownServiceDetail, unknownServices } from '../core/known-services.ts';
import type { ArchiveReads, Clock } from '../core/ports.ts';
import { MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import { perStoreMemo } from './generation-memo.ts';

/** The names only change with the archive; the age bound is a backstop, not a refresh rule. */
const KNOWN_SERVICES_MAX_AGE_MS = 60_000;

/** The archive's names, read again when its generation moves. */
export type KnownServicesStore = Pick<ArchiveReads, 'knownServices' | 'archiveGeneration'>;

/** Every source's names, read once per archive generation and shared by every route of the same store. */
export const knownServiceNames: (store: KnownServicesStore, clock: Clock) => () => Promise<string[]> = perStoreMemo(
  KNOWN_SERVICES_MAX_AGE_MS,
  async (store: KnownServicesStore) => mergeKnownServices(await store.knownServices(KNOWN_SERVICES_MAX)),
);

/**
 * The vendor's own names: its list and those its feed's incidents used, not a watched page's
 * (a page's names are its components, source-state.ts). What the vendor's widget, badge, MCP
 * answer and slash command know.
 */
export const vendorServiceNames: (store: KnownServicesStore, clock: Clock) => () => Promise<string[]> = perStoreMemo(
  KNOWN_SERVICES_MAX_AGE_MS,
  async (store: KnownServicesStore) => mergeKnownServices(await store.knownServices(KNOWN_SERVICES_MAX, MAIN_FEED_SOURCE)),
);

/**
 * The names a `service` filter is checked against when it may come with a `source`: the vendor's
 * own for the main feed (a watched page's component is no service of the vendor's, so the answer
 * would be an empty list, read as "never down"), every source's otherwise.
 */
export type ServiceNamesOfSource = (source?: string) => Promise<string[]>;

export function serviceNamesOfSource(store: KnownServicesStore, clock: Clock): ServiceNamesOfSource {
  const every = knownServiceNames(store, clock);
  const vendor = vendorServiceNames(store, clock);
  return (source) => (source === MAIN_FEED_SOURCE ? vendor() : every());
}

/** A 400 `unknown_service` naming the known services when any name asked for is not one. */
export async function requireKnownServices(known: () => Promise<string[]>, field: string, asked: readonly string[] | undefined): Promise<void> {
  if (!asked || asked.length === 0) return;
  const names = await known();
  const unknown = unknownServices(asked, names);
  if (unknown.length > 0) throw new ApiError(400, 'unknown_service', unknownServiceDetail(field, unknown, names));
}
