/** HTTP validators for feed bodies: a strong ETag from the body, Last-Modified, and the 304 decision. */
import { httpDate } from './vendor-time-format.ts';
import type { FeedDocument } from './wire.ts';

/** A strong ETag: the first 128 bits of the body's SHA-256. */
export async function strongEtag(body: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body));
  const hex = [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `"${hex}"`;
}

/** If-None-Match uses weak comparison (RFC 9110 §13.1.2), so `W/"x"` matches `"x"`. */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** If-Modified-Since counts only without If-None-Match, as RFC 9110 §13.1.3 says. */
function notModified(headers: Headers, etag: string, lastModifiedMs: number | null): boolean {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) return etagMatches(ifNoneMatch, etag);
  const ifModifiedSince = headers.get('if-modified-since');
  if (ifModifiedSince === null || lastModifiedMs === null) return false;
  const sinceMs = Date.parse(ifModifiedSince);
  return !Number.isNaN(sinceMs) && Math.floor(lastModifiedMs / 1000) * 1000 <= sinceMs;
}

/** Headers every feed body carries; validators only when conditional requests are on. */
export async function feedHeaders(doc: FeedDocument, conditional: boolean): Promise<Headers> {
  const headers = new Headers({ 'Content-Type': 'application/json' });
  if (conditional) {
    headers.set('ETag', await strongEtag(doc.body));
    if (doc.lastModifiedMs !== null) headers.set('Last-Modified', httpDate(doc.lastModifiedMs));
  }
  return headers;
}

/** The real answer to a feed request: 200 with the body, or 304 when the client's copy is current. */
export async function documentResponse(request: Request, doc: FeedDocument, conditional: boolean): Promise<Response> {
  const headers = await feedHeaders(doc, conditional);
  const etag = headers.get('ETag');
  if (etag !== null && notModified(request.headers, etag, doc.lastModifiedMs)) {
    headers.delete('Content-Type');
    return new Response(null, { status: 304, headers });
  }
  return new Response(doc.body, { status: 200, headers });
}
