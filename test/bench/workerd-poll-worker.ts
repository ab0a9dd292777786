/**
 * The worker the workerd poll benchmark runs (poll-cycle-workerd.ts bundles it with wrangler): the
 * real poller over D1 and the fetch feed client, as the Workers entry wires them, plus the
 * baseline, a bare fetch of the same two feed bodies and JSON.parse, in the same isolate.
 * Web-standard APIs only.
 */
import { d1Connection, type D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { createPoller, FEED_PATHS, type Poller } from '../../src/app/poller.ts';
import type { Clock, Logger } from '../../src/core/ports.ts';

type Env = { DB: D1DatabaseLike; STATUS_URL: string };

const clock: Clock = { now: () => Date.now() };
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The request being answered: its context keeps a quiet poll's record alive after the answer. */
let answering: { waitUntil(work: Promise<unknown>): void } | undefined;
/**
 * Work kept alive past an answer, until /settled: local D1 runs on workerd's thread, so a record
 * still being written would slow whatever request came next, the baseline's too.
 */
let keptAlive: Promise<unknown>[] = [];

/** Kept across requests while the isolate lives, as a Worker's module state is: its caches warm. */
let kept: Poller | undefined;

function newPoller(env: Env): Poller {
  return createPoller({
    store: createSqliteStore(d1Connection(env.DB)),
    feed: createFetchFeedClient({ baseUrl: env.STATUS_URL, timeoutMs: 10_000, maxBytes: 5_000_000, userAgent: 'statuswatch-bench', clock }),
    clock,
    logger: silent,
    instanceId: `workerd-bench:${crypto.randomUUID().slice(0, 8)}`,
    newId: () => crypto.randomUUID(),
    // As the cron's poller: a quiet poll's run is recorded after its answer, kept alive by the
    // request that answered (requests come one at a time).
    keepAlive: (work) => {
      answering?.waitUntil(work);
      keptAlive.push(work);
    },
  });
}

async function bareFetchAndParse(env: Env): Promise<number> {
  const get = async (path: string) => (await fetch(env.STATUS_URL + path, { headers: { accept: 'application/json' } })).text();
  const bodies = await Promise.all([get(FEED_PATHS['v2/current']), get(FEED_PATHS['v2/history'])]);
  return bodies.map((body) => JSON.parse(body) as unknown).length;
}

export default {
  async fetch(request: Request, env: Env, ctx: { waitUntil(work: Promise<unknown>): void }): Promise<Response> {
    answering = ctx;
    const path = new URL(request.url).pathname;
    if (path === '/bare') return Response.json({ parsed: await bareFetchAndParse(env) });
    if (path === '/settled') {
      const settling = keptAlive;
      keptAlive = [];
      await Promise.allSettled(settling);
      return Response.json({ settled: settling.length });
    }
    if (path === '/poll' || path === '/poll-fresh') {
      // /poll-fresh: a poller made for this request, as when every cron event gets a new isolate.
      if (path === '/poll' && !kept) kept = newPoller(env);
      const poller = path === '/poll-fresh' ? newPoller(env) : kept!;
      const result = await poller.pollOnce();
      if (result.status === 'skipped') return Response.json({ status: 'skipped', reason: result.reason });
      return Response.json({ status: result.status, unchanged: result.unchanged, events: result.events.map((e) => `${e.type} ${e.incidentId}`) });
    }
    return new Response('not found', { status: 404 });
  },
};
