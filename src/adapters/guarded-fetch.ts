/**
 * A fetch for outbound reads of addresses an admin gives (source pages) on Node: every connection,
 * redirects included, passes the webhook targets' connect-time guard, so a name that resolves (or
 * re-resolves) to a private address is refused after DNS, not only judged by its URL.
 */
import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedConnector } from './webhook-target-guard.ts';

export type GuardedFetch = typeof fetch & { close(): Promise<void> };

export type GuardedFetchOptions = {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** The resolver; dns.lookup unless a test simulates one that answers with a private address. */
  lookup?: LookupFunction;
};

export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const agent = new Agent({ connect: guardedConnector(options) });
  const guarded = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent,
    }) as unknown as Promise<Response>) as GuardedFetch;
  guarded.close = () => agent.close();
  return guarded;
}
