/**
 * A subscription's `"<source id>:<service>"` entries checked against the page's own names: a
 * misspelt component would silently never match, so it is refused with the names the page has.
 */
import { ApiError } from '../core/errors.ts';
import { KNOWN_SERVICES_MAX, unknownServiceDetail, unknownServices } from '../core/known-services.ts';
import type { ArchiveReads, SourceStore } from '../core/ports.ts';
import { componentServiceNames, MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import { serviceFilterEntry } from '../core/subscription.ts';

export type SourceServiceNamesStore = Pick<SourceStore, 'componentStates'> & Pick<ArchiveReads, 'knownServices'>;

/**
 * A 400 `unknown_service` when an entry names a service its page does not have: neither a
 * component the page lists now (plain or as "Group / Component") nor a name its archived
 * incidents used (a component since renamed or removed). A page never read yet has no names to
 * check against: its entries are kept as given.
 */
export async function requireKnownSourceServices(store: SourceServiceNamesStore, field: string, services: readonly string[] | undefined): Promise<void> {
  const asked = new Map<string, string[]>();
  for (const entry of services ?? []) {
    const { source, service } = serviceFilterEntry(entry);
    if (source === MAIN_FEED_SOURCE) continue;
    asked.set(source, [...(asked.get(source) ?? []), service]);
  }
  for (const [source, names] of asked) {
    const states = await store.componentStates(source);
    if (states.length === 0) continue;
    const known = [...new Set([...componentServiceNames(states), ...(await store.knownServices(KNOWN_SERVICES_MAX, source))])];
    const unknown = unknownServices(names, known);
    if (unknown.length === 0) continue;
    const named = (name: string) => `${source}:${name}`;
    throw new ApiError(400, 'unknown_service', unknownServiceDetail(field, unknown.map(named), known.map(named)));
  }
}
