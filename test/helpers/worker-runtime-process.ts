/**
 * The Workers form as a runtime a Node test can start, kill and start again: src/entry/worker.ts
 * bundled once by wrangler, as a deploy would upload it, run by
 * Miniflare with the bindings wrangler.toml declares (D1, the deliveries queue and its consumer),
 * D1 persisted in a folder that outlives each runtime. `dispose()` while an invocation runs ends
 * the workerd process under it: what a kill of the whole runtime does.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { tempDir } from './temp-archive.ts';

export type WorkerBundle = { script: string };

/**
 * Bundles the Worker exactly as `wrangler deploy` would (its --dry-run writes the bundle it
 * would upload): about 2 MB, some 5 s. Offline: no account, no network.
 */
export async function bundleWorker(): Promise<WorkerBundle> {
  const outDir = tempDir('statuswatch-worker-bundle-');
  await promisify(execFile)(join('node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', outDir], {
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: 'true' },
  });
  try {
    return { script: readFileSync(join(outDir, 'worker.js'), 'utf8') };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

export type WorkerRuntime = {
  /** Fires the cron handler once; resolves when the invocation has ended, rejects when the runtime was killed under it. */
  scheduled(): Promise<void>;
  /** A request to the Worker's fetch handler. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Runs SQL on the runtime's D1 (an oracle's read, never a write the Worker should make). */
  query<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Ends the runtime, whatever it is doing. */
  dispose(): Promise<void>;
};

export type WorkerRuntimeOptions = {
  bundle: WorkerBundle;
  /** Where D1 keeps its files: the same folder for every runtime of one test. */
  persistDir: string;
  /** Settings by Node's names; they override wrangler.toml's [vars]. */
  settings: Record<string, string>;
};

/** Starts a runtime on the persisted D1 (creating and migrating it on first use, as `wrangler d1 migrations apply` would). */
export async function startWorkerRuntime(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions('wrangler.toml');
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: 'worker.js', contents: options.bundle.script }],
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    d1Databases: workerOptions.d1Databases,
    queueProducers: workerOptions.queueProducers,
    queueConsumers: workerOptions.queueConsumers,
    bindings: { ...workerOptions.bindings, ...options.settings },
    d1Persist: join(options.persistDir, 'd1'),
    // The queue's messages are not persisted: a killed runtime loses its wake-ups, as the test wants.
  });
  await mf.ready;
  const db = await mf.getD1Database('DB');
  await migrate(db);
  return {
    async scheduled() {
      const worker = await mf.getWorker();
      await worker.scheduled({ cron: '* * * * *', scheduledTime: new Date() });
    },
    async fetch(path, init) {
      const response = await mf.dispatchFetch(`http://statuswatch.test${path}`, init as never);
      return response as unknown as Response;
    },
    async query<T>(sql: string, ...params: unknown[]) {
      const result = await db
        .prepare(sql)
        .bind(...params)
        .all<T>();
      return result.results;
    },
    dispose: () => mf.dispose(),
  };
}

type D1 = Awaited<ReturnType<Miniflare['getD1Database']>>;

/** Applies drizzle/ once, keeping what was applied in the table wrangler uses (d1_migrations). */
async function migrate(db: D1): Promise<void> {
  await db
    .prepare(
      'CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)',
    )
    .run();
  const applied = new Set((await db.prepare('SELECT name FROM d1_migrations').all<{ name: string }>()).results.map((r) => r.name));
  for (const migration of await readD1Migrations('drizzle')) {
    if (applied.has(migration.name)) continue;
    await db.batch([...migration.queries.map((q) => db.prepare(q)), db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(migration.name)]);
  }
}
