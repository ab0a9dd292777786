/** Requests and 429s per SCIM endpoint, so a bench can count what a sync cost. */
import { SCIM_ENDPOINTS, type ScimEndpoint } from './faults.ts';

export type EndpointCount = { requests: number; rateLimited: number; faulted: number };

export type ScimCounters = {
  count(endpoint: ScimEndpoint, field: keyof EndpointCount): void;
  /** Every endpoint, zeros included, so a reader never has to guess a missing key. */
  snapshot(): Record<ScimEndpoint, EndpointCount> & { total: EndpointCount };
  clear(): void;
};

export function createScimCounters(): ScimCounters {
  // Keyed by the fixed endpoint list only: outside input cannot add keys.
  const counts = new Map<ScimEndpoint, EndpointCount>();
  return {
    count(endpoint, field) {
      const entry = counts.get(endpoint) ?? { requests: 0, rateLimited: 0, faulted: 0 };
      entry[field] += 1;
      counts.set(endpoint, entry);
    },
    snapshot() {
      const total: EndpointCount = { requests: 0, rateLimited: 0, faulted: 0 };
      const out = {} as Record<ScimEndpoint, EndpointCount>;
      for (const endpoint of SCIM_ENDPOINTS) {
        const entry = counts.get(endpoint) ?? { requests: 0, rateLimited: 0, faulted: 0 };
        out[endpoint] = { ...entry };
        total.requests += entry.requests;
        total.rateLimited += entry.rateLimited;
        total.faulted += entry.faulted;
      }
      return { ...out, total };
    },
    clear() {
      counts.clear();
    },
  };
}
