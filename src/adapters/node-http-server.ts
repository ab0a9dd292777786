/**
 * The Node HTTP server around the app, answering in the API's error shape what Node and
 * @hono/node-server refuse before the app sees a request (oversized headers, a request that is not
 * HTTP, a bad Host), instead of their empty 400/431 bodies.
 */
import { getRequestListener, RequestError } from '@hono/node-server';
import { createServer, maxHeaderSize, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../core/ports.ts';

export type Refusal = { status: number; statusText: string; error: string; detail: string };

/** What Node's parser error (its `code`) means for the client; the codes are Node's own. */
export function refusalFor(code: string | undefined, reason?: string): Refusal {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        statusText: 'Request Header Fields Too Large',
        error: 'request_header_fields_too_large',
        detail: `the request line and headers are larger than the ${Math.round(maxHeaderSize / 1024)} KB this server accepts`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, statusText: 'Payload Too Large', error: 'payload_too_large', detail: 'the chunk extensions of the body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, statusText: 'Request Timeout', error: 'request_timeout', detail: 'the request did not arrive in full in time' };
    default:
      // llhttp's reason is a fixed phrase ("Invalid method encountered"), never the client's bytes.
      return { status: 400, statusText: 'Bad Request', error: 'invalid_request', detail: `not a valid HTTP/1.1 request${reason ? `: ${reason}` : ''}` };
  }
}

/** The whole HTTP/1.1 answer, written straight to the socket: there is no response object yet. */
export function refusalResponse(refusal: Refusal): string {
  const body = JSON.stringify({ ok: false, error: refusal.error, detail: refusal.detail });
  return [
    `HTTP/1.1 ${refusal.status} ${refusal.statusText}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

type ParserError = Error & { code?: string; reason?: string };

/** Node's `clientError`: the client's fault, so one debug line and never a stack. */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    // A reset or a half-written request from a client that left: nobody to answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      logger.debug('client went away before its request was read', { code: error.code });
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error.code, error.reason);
    logger.debug('refused a request Node could not read', { status: refusal.status, code: error.code });
    socket.end(refusalResponse(refusal), () => socket.destroy());
  });
}

/** The app's requests served over HTTP/1.1, with every refusal in the error shape. */
export function createNodeHttpServer(options: { fetch: Parameters<typeof getRequestListener>[0]; hostname: string; logger: Logger }): Server {
  const { logger } = options;
  const listener = getRequestListener(options.fetch, {
    hostname: options.hostname,
    // Called when no Request could be made of what came (a bad Host or URL), and should the app
    // itself throw (its onError answers everything it can).
    errorHandler: (error) => {
      if (error instanceof RequestError) {
        logger.debug('refused a request with a bad URL or Host', { error: error.message });
        return Response.json({ ok: false, error: 'invalid_request', detail: error.message }, { status: 400, headers: { connection: 'close' } });
      }
      logger.error('request failed outside the app', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return Response.json({ ok: false, error: 'internal_error' }, { status: 500 });
    },
  });
  const server = createServer(listener);
  answerClientErrors(server, logger);
  return server;
}
