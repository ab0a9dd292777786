/**
 * The per-client budget of costly reads: answers built because the response cache had none (a
 * new query, a new page, a search). A hit costs nothing and is never refused; a build is timed and
 * paid from its client's budget, and a client in debt gets 429 with Retry-After until the refill
 * has paid it back. One looping client, or a few, can then keep the server busy for a bounded
 * share of its time, however costly the reads it picks, and the hot paths keep the rest.
 *
 * Clients are keyed as the sign-up limit keys them (one IPv4 address, one IPv6 /64), from the
 * address the runtime reports (X-Forwarded-For only with TRUST_PROXY). Behind a proxy without it,
 * every client shares the proxy's budget.
 */
import type { Context } from 'hono';
import {
  checkCostRule,
  DEFAULT_READ_BUDGET_MS_PER_SECOND,
  readBudgetRule,
  refilled,
  spent,
  waitMs,
  type CostRule,
  type CostState,
} from '../core/cost-budget.ts';
import { ApiError } from '../core/errors.ts';
import { limitKeyForAddress } from '../core/rate-limit.ts';
import { createRecencyMap } from './recency-map.ts';

/**
 * What a build costs at the least, whatever the clock says: routing, the answer and its cache entry
 * cost something, and a clock that does not move while code runs (Workers between I/O) reads 0.
 */
export const MIN_BUILD_COST_MS = 1;
/**
 * Clients remembered; past this the least recently seen is forgotten, and starts afresh if it comes
 * back. Each costs its key and two numbers.
 */
export const READ_BUDGET_MAX_CLIENTS = 10_000;
/**
 * Builds one client may have under way at once. A build is paid once it is done, so without this a
 * client could open a thousand connections and have every one admitted on the same balance.
 */
export const READ_MAX_BUILDS_PER_CLIENT = 4;
/**
 * A refusal is answered this late (at most; sooner if the budget refills sooner). Answered at once,
 * eight clients looping on refusals sent a thousand a second and cost the hot paths more than half
 * their rate; held, each loop sends one a second. A held refusal costs a timer and its own socket.
 */
export const REFUSAL_HOLD_MS = 1_000;
/** Refusals held at once, at most; past it they are answered at once, so holding never grows without end. */
export const MAX_HELD_REFUSALS = 1_000;

export type ReadBudgetOptions = {
  /**
   * A monotonic time in ms; default performance.now(). Not the app's Clock, which tests may move
   * at will: the budget measures the real time builds take, and refills in real time.
   */
  nowMs?: () => number;
  clientAddress: (c: Context) => string;
  rule?: CostRule;
  maxClients?: number;
  /**
   * The runtime's timer (the runtime-free folders schedule nothing themselves): a refusal is held
   * this way. Without it a refusal is answered at once.
   */
  pause?: (ms: number) => Promise<void>;
};

export type ReadBudget = {
  /**
   * Call before building an answer: rejects with ApiError 429 (with Retry-After), after holding it
   * up to REFUSAL_HOLD_MS, when the client is in debt; otherwise gives what to call once the answer
   * is built, which pays for it.
   */
  admit(c: Context): Promise<() => void>;
  /**
   * admit, decided at once: what pays for the build, or the refusal (a promise that rejects once
   * held). A caller that others may wait on learns of a refusal before it holds anything of theirs.
   */
  admitNow(c: Context): (() => void) | Promise<never>;
  /** Clients held: never more than maxClients. */
  clients(): number;
};

/** `building`: admitted builds not yet paid for. */
type Client = { cost: CostState; building: number };

export function createReadBudget(options: ReadBudgetOptions): ReadBudget {
  const rule = options.rule ?? readBudgetRule(DEFAULT_READ_BUDGET_MS_PER_SECOND);
  checkCostRule(rule);
  const maxClients = options.maxClients ?? READ_BUDGET_MAX_CLIENTS;
  const states = createRecencyMap<Client>();
  const nowMs = options.nowMs ?? (() => performance.now());

  const put = (key: string, client: Client) => {
    states.set(key, client);
    while (states.size() > maxClients) states.delete(states.oldest()!.key);
  };
  let held = 0;
  const refuse = async (waitForMs: number, why: string): Promise<never> => {
    const pause = options.pause;
    const holdMs = pause && held < MAX_HELD_REFUSALS ? Math.min(waitForMs, REFUSAL_HOLD_MS) : 0;
    if (pause && holdMs > 0) {
      held++;
      try {
        await pause(holdMs);
      } finally {
        held--;
      }
    }
    const seconds = Math.max(1, Math.ceil((waitForMs - holdMs) / 1000));
    throw new ApiError(429, 'rate_limited', `${why}; try again in ${seconds} s, or repeat earlier requests, which are answered from the cache`, {
      'retry-after': String(seconds),
    });
  };

  const admitNow = (c: Context): (() => void) | Promise<never> => {
    const key = limitKeyForAddress(options.clientAddress(c));
    const startedMs = nowMs();
    const known = states.get(key);
    const client: Client = { cost: refilled(known?.cost, rule, startedMs), building: known?.building ?? 0 };
    put(key, client);
    const wait = waitMs(client.cost, rule);
    if (wait > 0) return refuse(wait, 'this client has used its share of uncached reads (answers the server must build)');
    if (client.building >= READ_MAX_BUILDS_PER_CLIENT) return refuse(REFUSAL_HOLD_MS, `this client has ${client.building} uncached reads under way already`);
    client.building++;
    return () => {
      const doneMs = nowMs();
      const costMs = Math.max(MIN_BUILD_COST_MS, doneMs - startedMs);
      // Read again: the client may have been forgotten meanwhile, or paid for other builds.
      const now = states.get(key);
      put(key, { cost: spent(refilled(now?.cost, rule, doneMs), costMs), building: Math.max(0, (now?.building ?? 1) - 1) });
    };
  };

  return {
    admit: async (c) => admitNow(c),
    admitNow,
    clients: () => states.size(),
  };
}
