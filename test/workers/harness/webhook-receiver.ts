/** The Workers pool's stand-in for test/helpers/webhook-receiver.ts: the same real receiver, started on the Node side by the fixture factory. */
import { callFactory, logPuller, type StartedFixture, watchCatcher } from './fixture-client.ts';

export type ReceivedRequest = {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  receivedAt: number;
  /** Requests waiting for their answer when this one arrived, itself included. */
  inFlight: number;
};
export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: string };

export type WebhookReceiver = {
  url: string;
  received: ReceivedRequest[];
  /** Answers for the next requests, in order; after them, 200. Sent before the app's next request. */
  answerNext(...answers: ScriptedAnswer[]): void;
  /** Resolves once `count` requests have arrived in all. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
};

const WAIT_POLL_MS = 20;

/** `answerDelayMs`: each answer held back this long, so requests overlap. */
export async function startWebhookReceiver(options: { answerDelayMs?: number } = {}): Promise<WebhookReceiver> {
  const { id, url } = await callFactory<StartedFixture>('POST', '/receivers', options);
  const received: ReceivedRequest[] = [];
  const pull = logPuller<ReceivedRequest, ReceivedRequest>('receivers', id, received, (r) => r);
  let scripted: Promise<unknown> = Promise.resolve();
  const unwatch = watchCatcher({ flush: async () => void (await scripted), pull });
  return {
    url,
    received,
    answerNext(...answers) {
      const previous = scripted;
      scripted = previous.then(() => callFactory('POST', `/receivers/${id}/answers`, answers));
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await pull();
        if (received.length >= count) return received;
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
      }
    },
    async close() {
      unwatch();
      await callFactory('DELETE', `/receivers/${id}`);
    },
  };
}
