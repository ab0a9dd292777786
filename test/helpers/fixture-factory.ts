/**
 * A loopback HTTP API that starts the Node-side parts a test needs and workerd cannot run itself
 * (the simulated vendor, webhook receivers, the Postmark stand-in), for tests running inside the
 * Workers pool: they ask here for a part, get its URL, and read what it saw over HTTP.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { startSimulatedVendor } from '../../src/sim/server.ts';
import { keepIdleConnections } from '../../src/sim/serve-simulator.ts';
import { startSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';
import { startSimulatedWebApi } from '../../src/sim/web-api/server.ts';
import { startPostmark } from './postmark-api.ts';
import { statuspageOptionsOf } from './statuspage-pages.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

/** Parts alive at once, per kind: a test file holds two or three; more is a test that forgets to close. */
export const MAX_LIVE_FIXTURES = 32;
/** Requests to the factory are small JSON; the vendor's own control API takes the big ones. */
const MAX_BODY_BYTES = 64 * 1024;

export type FixtureFactory = { url: string; close(): Promise<void> };

type Kind = 'vendors' | 'receivers' | 'mail-apis' | 'web-apis' | 'statuspages';
type Live = { url: string; close(): Promise<void>; read?: (since: number) => { items: unknown[]; total: number }; script?: (answers: ScriptedAnswers) => void };

const vendorOptions = z.strictObject({
  historyWindowDays: z.number().int().positive().optional(),
  style: z.enum(['modern', 'legacy']).optional(),
  conditional: z.boolean().optional(),
});
const statuspageOptions = z.strictObject({ name: z.string().min(1).max(200).optional(), demo: z.string().min(1).max(200).optional() });
const mailApiOptions = z.strictObject({ token: z.string().min(1).max(200).optional() });
/** `answerDelayMs`: each answer held back this long, so a sender's requests overlap. */
const receiverOptions = z.strictObject({ answerDelayMs: z.number().int().min(0).max(10_000).optional() });
const scriptedAnswers = z
  .array(z.strictObject({ status: z.number().int().min(200).max(599), headers: z.record(z.string(), z.string()).optional(), body: z.string().optional() }))
  .max(100);
type ScriptedAnswers = z.infer<typeof scriptedAnswers>;

class FixtureError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

export async function startFixtureFactory(): Promise<FixtureFactory> {
  const live: Record<Kind, Map<string, Live>> = {
    vendors: new Map(),
    receivers: new Map(),
    'mail-apis': new Map(),
    'web-apis': new Map(),
    statuspages: new Map(),
  };
  let nextId = 0;

  const add = async (kind: Kind, start: () => Promise<Live>) => {
    if (live[kind].size >= MAX_LIVE_FIXTURES) {
      throw new FixtureError(409, 'too_many_fixtures', `at most ${MAX_LIVE_FIXTURES} ${kind} at once: close one first`);
    }
    const id = String(++nextId);
    const part = await start();
    live[kind].set(id, part);
    return { ok: true, id, url: part.url };
  };
  const find = (kind: Kind, id: string): Live => {
    const part = live[kind].get(id);
    if (!part) throw new FixtureError(404, 'not_found', `no ${kind} ${id}: never started, or closed`);
    return part;
  };
  const parse = async <T>(schema: z.ZodType<T>, request: Request): Promise<T> => {
    const text = await request.text();
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new FixtureError(400, 'invalid_request', 'body: expected JSON');
    }
    const result = schema.safeParse(json);
    if (!result.success) throw new FixtureError(400, 'invalid_request', z.prettifyError(result.error));
    return result.data;
  };
  const since = (value: string | undefined) => {
    const n = Number(value ?? '0');
    if (!Number.isSafeInteger(n) || n < 0) throw new FixtureError(400, 'invalid_request', 'since: expected a count, 0 or more');
    return n;
  };

  const app = new Hono();
  // Tests may go quiet for longer than Node's keep-alive (5 s); workerd then reuses the connection
  // Node just closed and the call fails with "Network connection lost". One connection per call.
  app.use(async (c, next) => {
    await next();
    c.header('connection', 'close');
  });
  app.use(
    bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ ok: false, error: 'payload_too_large', detail: `at most ${MAX_BODY_BYTES} bytes` }, 413) }),
  );
  app.post('/vendors', async (c) => {
    const options = await parse(vendorOptions, c.req.raw);
    const body = await add('vendors', () => startSimulatedVendor({ scenario: { name: 'empty', initialWorld: () => [], steps: [], loop: false }, ...options }));
    return c.json(body, 201);
  });
  // A simulated page in the Statuspage format: a test drives it through its own control API (/_sim).
  app.post('/statuspages', async (c) => {
    const options = await parse(statuspageOptions, c.req.raw);
    return c.json(await add('statuspages', () => startSimulatedStatuspage(statuspageOptionsOf(options))), 201);
  });
  // The simulated Web API: a test drives it through its own control API (/_sim).
  app.post('/web-apis', async (c) => {
    await parse(z.strictObject({}), c.req.raw);
    const body = await add('web-apis', async () => {
      const sim = await startSimulatedWebApi();
      return { url: sim.url, close: sim.close };
    });
    return c.json(body, 201);
  });
  app.post('/receivers', async (c) => {
    const { answerDelayMs } = await parse(receiverOptions, c.req.raw);
    const body = await add('receivers', async () => {
      const receiver = await startWebhookReceiver(answerDelayMs === undefined ? {} : { answerDelayMs: () => answerDelayMs });
      return {
        url: receiver.url,
        close: receiver.close,
        read: (from) => ({ items: receiver.received.slice(from), total: receiver.received.length }),
        script: (answers) => receiver.answerNext(...answers),
      };
    });
    return c.json(body, 201);
  });
  app.post('/receivers/:id/answers', async (c) => {
    const part = find('receivers', c.req.param('id'));
    part.script!(await parse(scriptedAnswers, c.req.raw));
    return c.json({ ok: true });
  });
  app.post('/mail-apis', async (c) => {
    const { token } = await parse(mailApiOptions, c.req.raw);
    let serverToken = '';
    const body = await add('mail-apis', async () => {
      const postmark = await startPostmark(token);
      serverToken = postmark.token;
      return { url: postmark.url, close: postmark.close, read: (from) => ({ items: postmark.accepted.slice(from), total: postmark.accepted.length }) };
    });
    return c.json({ ...body, token: serverToken }, 201);
  });
  // What a receiver or the mail stand-in has seen, from the `since`-th on: callers keep their own count.
  app.get('/:kind{receivers|mail-apis}/:id/log', (c) => {
    const { items, total } = find(c.req.param('kind') as Kind, c.req.param('id')).read!(since(c.req.query('since')));
    return c.json({ ok: true, items, total });
  });
  app.delete('/:kind{vendors|receivers|mail-apis|web-apis|statuspages}/:id', async (c) => {
    const kind = c.req.param('kind') as Kind;
    const id = c.req.param('id');
    const part = find(kind, id);
    live[kind].delete(id);
    await part.close();
    return c.json({ ok: true });
  });
  app.notFound((c) => c.json({ ok: false, error: 'not_found', detail: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    if (error instanceof FixtureError) return c.json({ ok: false, error: error.code, detail: error.message }, error.status);
    return c.json({ ok: false, error: 'fixture_failed', detail: error instanceof Error ? error.message : String(error) }, 500);
  });

  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started as Server)) as Server;
    keepIdleConnections(started);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      const parts = Object.values(live).flatMap((byId) => [...byId.values()]);
      for (const byId of Object.values(live)) byId.clear();
      await Promise.all(parts.map((part) => part.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
