/**
 * Runs the Workers form's senders (fetch webhook sender, Postmark mailer) inside workerd, through
 * Miniflare, and hands them to Node tests as ordinary WebhookSender and Mailer objects: each call
 * crosses into the worker, which makes the real request from workerd's own fetch. The adapters
 * are bundled for the browser platform, so a Node import in them fails the build.
 */
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import type { MailResult, Mailer, OutgoingMail, WebhookAttempt, WebhookRequest, WebhookSender } from '../../src/core/ports.ts';
import type { FetchWebhookSenderOptions } from '../../src/adapters/fetch-webhook-sender.ts';
import type { PostmarkMailerOptions } from '../../src/adapters/postmark-mailer.ts';

// The worker keeps each sender it made under an id, so one test's sender keeps its settings
// (and its closed state) across calls, as an object would.
const WORKER_SOURCE = `
import { createFetchWebhookSender } from './src/adapters/fetch-webhook-sender.ts';
import { createPostmarkMailer } from './src/adapters/postmark-mailer.ts';

const senders = new Map();
const mailers = new Map();

export default {
  async fetch(request) {
    const call = await request.json();
    switch (call.op) {
      case 'webhook-create': {
        const { nowMs, ...options } = call.options;
        senders.set(call.id, createFetchWebhookSender({ ...options, clock: nowMs === undefined ? undefined : { now: () => nowMs } }));
        return Response.json(null);
      }
      case 'webhook-send':
        return Response.json(await senders.get(call.id).send(call.request));
      case 'webhook-close':
        await senders.get(call.id).close();
        return Response.json(null);
      case 'mail-create':
        mailers.set(call.id, createPostmarkMailer(call.options));
        return Response.json(null);
      case 'mail-send':
        return Response.json(await mailers.get(call.id).send(call.mail));
      default:
        return new Response('unknown op', { status: 400 });
    }
  },
};
`;

export type WorkerdSenders = {
  webhookSender(options: Omit<FetchWebhookSenderOptions, 'clock'> & { clock?: { now(): number } }): WebhookSender;
  postmarkMailer(options: PostmarkMailerOptions): Mailer;
  dispose(): Promise<void>;
};

export async function startWorkerdSenders(): Promise<WorkerdSenders> {
  const bundle = await build({
    stdin: { contents: WORKER_SOURCE, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const mf = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2026-04-01' });
  await mf.ready;
  let nextId = 0;
  const call = async <T>(body: unknown): Promise<T> => {
    const response = await mf.dispatchFetch('http://senders.test/', { method: 'POST', body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`worker answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };

  return {
    webhookSender(options) {
      const id = nextId++;
      // A test's clock is fixed; its reading crosses into the worker once.
      const created = call({ op: 'webhook-create', id, options: { ...options, clock: undefined, nowMs: options.clock?.now() } });
      return {
        send: async (request: WebhookRequest) => {
          await created;
          return call<WebhookAttempt>({ op: 'webhook-send', id, request });
        },
        close: async () => {
          await created;
          await call({ op: 'webhook-close', id });
        },
      };
    },
    postmarkMailer(options) {
      const id = nextId++;
      const created = call({ op: 'mail-create', id, options });
      return {
        send: async (mail: OutgoingMail) => {
          await created;
          return call<MailResult>({ op: 'mail-send', id, mail });
        },
        close() {},
      };
    },
    dispose: () => mf.dispose(),
  };
}
