/** Builds incident urls shaped like the vendor's: `https://slack-status.com/YYYY-MM/<16 hex>`. */
import { pacificYearMonth } from './vendor-time-format.ts';

function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

/** Deterministic per id, so a reset or a test run reproduces the same urls. */
export function incidentUrl(id: number, dateCreatedMs: number, host = 'slack-status.com'): string {
  const slug = hex8(fnv1a32(`incident:${id}`)) + hex8(fnv1a32(`${id}:incident`));
  return `https://${host}/${pacificYearMonth(dateCreatedMs)}/${slug}`;
}
