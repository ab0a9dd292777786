/**
 * The Hashes port on Node's own crypto: synchronous, on the calling thread. Node's Web Crypto runs
 * each digest and signature as a job on the thread pool; for the few hundred bytes of a webhook
 * that trip cost several times the hash (about 20 to 40 µs against 5), twice per delivery. A string
 * goes to the hash as it is (UTF-8, Node's default): encoding it to bytes first was a copy of the
 * body per delivery.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Hashes } from '../core/ports.ts';

export const nodeHashes: Hashes = {
  sha256: (data) => createHash('sha256').update(data).digest(),
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};
