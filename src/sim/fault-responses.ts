/** The responses each injected fault produces in place of (or around) the real feed body. */
import { feedHeaders } from './conditional.ts';
import type { Fault } from './faults.ts';
import { type HeldRequests, holdOpen } from './held-requests.ts';
import type { FeedDocument } from './wire.ts';

export const NOT_FOUND_TEXT = '404 Not Found';
export const REDIRECTED_PREFIX = '/_sim/redirected';

const DEFAULT_SLOW_MS = 5000;
const SLOW_CHUNKS = 20;

export type FaultContext = {
  request: Request;
  /** A valid-looking body of OVERSIZE_BYTES in the endpoint's own shape. */
  oversizeBody(): Uint8Array<ArrayBuffer>;
  /** Path plus query of the request, for the redirect target. */
  pathAndQuery: string;
  document(): FeedDocument;
  conditional: boolean;
  held: HeldRequests;
};

const text = (body: string, status: number, type = 'text/plain; charset=utf-8'): Response => new Response(body, { status, headers: { 'Content-Type': type } });

/** The real body, trickled out in small chunks spread over `totalMs`; the headers go out at once. */
function trickle(bytes: Uint8Array, totalMs: number, held: HeldRequests): ReadableStream<Uint8Array> {
  const chunks = Math.max(1, Math.min(SLOW_CHUNKS, bytes.length));
  const size = Math.ceil(bytes.length / chunks);
  const intervalMs = chunks > 1 ? totalMs / (chunks - 1) : 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let forget = (): void => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let index = 0;
      const stop = (): void => {
        clearTimeout(timer);
        forget();
        try {
          controller.close();
        } catch {
          // Already closed or errored by the reader going away: nothing left to end.
        }
      };
      forget = held.register(stop);
      const push = (): void => {
        controller.enqueue(bytes.slice(index * size, (index + 1) * size));
        index += 1;
        if (index >= chunks) stop();
        else timer = setTimeout(push, intervalMs);
      };
      push();
    },
    cancel() {
      clearTimeout(timer);
      forget();
    },
  });
}

export async function faultResponse(fault: Fault, ctx: FaultContext): Promise<Response> {
  switch (fault.kind) {
    case 'status': {
      const status = fault.status ?? 500;
      const headers = new Headers({ 'Content-Type': 'text/plain; charset=utf-8' });
      // Polite clients wait for Retry-After; one second keeps tests fast.
      if (status === 429 || status === 503) headers.set('Retry-After', '1');
      return new Response(`simulated error ${status}`, { status, headers });
    }
    case 'timeout':
      return holdOpen(ctx.request, ctx.held, () => text('held open', 503));
    case 'slow': {
      const doc = ctx.document();
      const headers = await feedHeaders(doc, ctx.conditional);
      const body = trickle(new TextEncoder().encode(doc.body), fault.delayMs ?? DEFAULT_SLOW_MS, ctx.held);
      return new Response(body, { status: 200, headers });
    }
    case 'malformed': {
      // Cut mid-document: whatever the shape, a closing bracket is missing, so it never parses.
      const body = ctx.document().body;
      return text(body.slice(0, Math.max(1, Math.floor(body.length / 2))), fault.status ?? 200, 'application/json');
    }
    case 'html':
      return text('<html><body>maintenance</body></html>', fault.status ?? 200, 'text/html; charset=utf-8');
    case 'not-feed':
      return text('{"error":"rate_limited"}', fault.status ?? 200, 'application/json');
    case 'missing':
      return text(NOT_FOUND_TEXT, fault.status ?? 404);
    case 'oversize':
      return new Response(ctx.oversizeBody(), {
        status: fault.status ?? 200,
        headers: { 'Content-Type': 'application/json' },
      });
    case 'body':
      return text(fault.body ?? '', fault.status ?? 200, 'application/json');
    case 'redirect':
      return new Response(null, {
        status: fault.status ?? 302,
        headers: { Location: `${REDIRECTED_PREFIX}${ctx.pathAndQuery}` },
      });
  }
}
