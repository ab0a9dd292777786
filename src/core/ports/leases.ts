/** Named leases in the shared database: one poller at a time across processes (Node) or invocations (Workers). */

/** A holder's claim on a named lease until `now + ttlMs`. */
export type LeaseClaim = { name: string; holder: string; now: number; ttlMs: number };

/** A holder giving a named lease back. */
export type LeaseRelease = { name: string; holder: string };

export interface Leases {
  /** True when `holder` now holds the lease: it was free, expired, or already theirs (a renewal). */
  tryAcquireLease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Who holds the lease now, if anyone (expired or not). */
  leaseHolder(name: string): Promise<string | null>;
  /** Takes the lease from `previous` (known to be dead); true when it was still theirs. */
  takeOverLease(name: string, previous: string, holder: string, now: number, ttlMs: number): Promise<boolean>;
}
