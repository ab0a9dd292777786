/** A real HTTP receiver on loopback for webhook tests: records every request and answers as told. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from '../../src/sim/serve-simulator.ts';

export type ReceivedRequest = {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** Requests waiting for their answer when this one arrived, itself included: the sender's requests in flight. */
  inFlight: number;
};
export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: string };

export type WebhookReceiver = {
  url: string;
  received: ReceivedRequest[];
  /** Answers for the next requests, in order; after them, 200. */
  answerNext(...answers: ScriptedAnswer[]): void;
  /** Resolves once `count` requests have arrived in all. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
};

export type WebhookReceiverOptions = {
  /** Holds each answer back a little: widens the window a crash test can hit. */
  answerDelayMs?: () => number;
  /**
   * Holds each answer until the promise settles: a test orders its steps around a request in
   * flight (moves its clock, lets another party act) instead of racing it with sleeps.
   */
  beforeAnswer?: (request: ReceivedRequest) => Promise<void>;
};

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const script: ScriptedAnswer[] = [];
  let waiters: { count: number; resolve: () => void }[] = [];
  let unanswered = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      unanswered++;
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedRequest = { path: req.url ?? '/', headers: req.headers, body, receivedAt: Date.now(), inFlight: unanswered };
      received.push(request);
      const answer = script.shift() ?? { status: 200, body: 'ok' };
      const respond = () => {
        unanswered--;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      const delayMs = options.answerDelayMs?.() ?? 0;
      const answerNow = () => (delayMs > 0 ? setTimeout(respond, delayMs) : respond());
      if (options.beforeAnswer) void options.beforeAnswer(request).then(answerNow, answerNow);
      else answerNow();
      waiters = waiters.filter((w) => (received.length >= w.count ? (w.resolve(), false) : true));
    });
  });
  keepIdleConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answerNext: (...answers) => void script.push(...answers),
    waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} webhook requests, got ${received.length}`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(received)) });
      });
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
