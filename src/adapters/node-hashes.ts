/**
 * The Hashes port on Node's own crypto: synchronous, on the calling thread. Node's Web Crypto runs
 * each digest and signature as a job on the thread pool; for the few hundred bytes of a webhook
 * that trip cost several times the hash (about 20 to 40 µs against 5), twice per delivery. A string
 * goes to the hash as it is (UTF-8, Node's default): encoding it to bytes first was a copy of the
 * body per delivery.
 */
import { createHmac, hash } from 'node:crypto';
import type { Hashes } from '../core/ports.ts';

export const nodeHashes: Hashes = {
  // One-shot, not a `createHash` object: in the deliverer, between HTTP exchanges and SQLite, the
  // object and its OpenSSL context cost about 5 µs per webhook-id against about 3.
  sha256: (data) => hash('sha256', data, 'buffer') as unknown as Buffer,
  // (Two one-shot digests around padded keys, RFC 2104's HMAC by hand, cost as much as this.)
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};
