/** `statuswatch serve` in a child process, for tests that kill it: its URL, its admin API, a kill. */
import { spawnCli, type CliResult } from './cli.ts';
import { countOkPolls } from './crash-oracle.ts';
import { ADMIN_TOKEN } from './service.ts';
import type { StoryFilters } from './crash-story.ts';

export type ServeProcess = {
  url: string;
  admin(method: string, path: string, body?: unknown): Promise<any>;
  kill(signal: NodeJS.Signals): Promise<CliResult>;
};

/** The settings every crash test runs serve with; `extra` adds or overrides. */
export function serveEnv(database: string, statusUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_PATH: database,
    STATUS_URL: statusUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // info: the "serving" log line (on stderr) tells the test the URL.
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Spawns serve; `started` resolves with the process once it logged its URL. */
export function spawnServe(env: Record<string, string>): { started: Promise<ServeProcess>; kill(signal: NodeJS.Signals): Promise<CliResult> } {
  const { child, done } = spawnCli(['serve'], env);
  const kill = async (signal: NodeJS.Signals) => {
    child.kill(signal);
    return done;
  };
  const started = new Promise<ServeProcess>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"url":"(http:[^"]+)"/.exec(buffered);
      if (match) resolve({ url: match[1]!, admin: (method, path, body) => admin(match[1]!, method, path, body), kill });
    });
    void done.then((r) => reject(new Error(`serve exited before serving: ${r.code ?? r.signal} ${r.stderr}`)));
  });
  // A kill before the URL is logged rejects `started`; the caller may not be waiting on it.
  started.catch(() => {});
  return { started, kill };
}

async function admin(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

/** Registers one webhook subscription per entry, each at `<receiver>?s=<name>`, through a short-lived serve. */
export async function subscribeAll(env: Record<string, string>, receiverUrl: string, subscriptions: Readonly<Record<string, StoryFilters>>): Promise<void> {
  const service = await spawnServe({ ...env, POLL_ON_START: 'false', POLL_SCHEDULE: '0 0 1 1 *' }).started;
  try {
    for (const [name, filters] of Object.entries(subscriptions)) {
      const created = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: `${receiverUrl}?s=${name}`, filters });
      if (!created.ok) throw new Error(`could not subscribe ${name}: ${JSON.stringify(created)}`);
    }
  } finally {
    await service.kill('SIGTERM');
  }
}

/**
 * Runs serve until it has polled the vendor's current state (`isPolled`) and the outbox has nothing
 * pending, then stops it cleanly: what a restarted service does after the crashes.
 */
export async function serveUntilSettled(env: Record<string, string>, isPolled: () => boolean, timeoutMs = 30_000): Promise<void> {
  const service = await spawnServe({ ...env, POLL_ON_START: 'true' }).started;
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (isPolled()) {
        const pending = await service.admin('GET', '/api/deliveries?state=pending&limit=1');
        if (pending.deliveries.length === 0) return;
      }
      if (Date.now() > deadline) throw new Error('serve did not settle: a poll or deliveries still pending');
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await service.kill('SIGTERM');
  }
}

/**
 * When to SIGKILL a serve process: at a random moment within `withinMs` of its spawn (set it to how
 * long startup plus the first poll took last time, and the kill lands before the commit), or once
 * a poll has committed and `wait` has resolved (fan-out, the next scheduled polls).
 */
export type KillMoment = { beforeCommit: { withinMs: number } } | { afterCommit: { wait: () => Promise<unknown> } };

export type KillOutcome = {
  /** A poll committed a complete read before the kill: the vendor's state is archived. */
  committed: boolean;
  /** Spawn to first commit, when the round waited for it: the next `withinMs`. */
  spawnToCommitMs: number | null;
};

const COMMIT_WAIT_MS = 60_000;

export async function spawnAndKill(env: Record<string, string>, moment: KillMoment): Promise<KillOutcome> {
  const database = env.DATABASE_PATH!;
  const okBefore = countOkPolls(database);
  const spawnedAt = Date.now();
  const serve = spawnServe(env);
  let spawnToCommitMs: number | null = null;
  try {
    if ('beforeCommit' in moment) {
      await new Promise((r) => setTimeout(r, Math.random() * moment.beforeCommit.withinMs));
    } else {
      while (countOkPolls(database) === okBefore) {
        if (Date.now() - spawnedAt > COMMIT_WAIT_MS) throw new Error(`serve committed no poll in ${COMMIT_WAIT_MS} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      spawnToCommitMs = Date.now() - spawnedAt;
      await moment.afterCommit.wait();
    }
  } finally {
    await serve.kill('SIGKILL');
  }
  return { committed: countOkPolls(database) > okBefore, spawnToCommitMs };
}
