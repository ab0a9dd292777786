/**
 * Moves the archive's WAL checkpoints off the event loop, onto a thread with a connection of its
 * own (wal-checkpoint-thread.mjs), for a process that serves.
 *
 * SQLite checkpoints on the connection whose commit takes the WAL past 1,000 pages: that commit
 * then copies the pages into the database file and syncs both, and everything on the event loop
 * (answers, polls, deliveries) waits for the two syncs, 5 to 50 ms on a loaded disk. Draining
 * 1,000 webhooks spent a tenth of its time in them. On the thread the syncs wait alone.
 *
 * It checkpoints within a tick of each commit, so a power cut loses at most that tick's commits:
 * under `synchronous = NORMAL` a commit is durable once a checkpoint has synced the WAL, and at
 * 1,000 pages a quiet archive reached the file only every few hours. The writer still syncs the
 * WAL's header when it starts the file over after a checkpoint, at most once a tick. The thread
 * costs about 9 MB of RSS (a V8 isolate of its own).
 */
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { createFailureReporter } from '../app/failure-reporter.ts';
import type { Clock, Logger } from '../core/ports.ts';

/** How often the thread looks for commits to copy. */
const CHECKPOINT_INTERVAL_MS = 1_000;
/** SQLite's own default: what the writer goes back to when the thread is gone. */
const INLINE_CHECKPOINT_PAGES = 1_000;
/**
 * What a WAL file keeps of its size once it starts over: a burst (10,000 deliveries in a second)
 * can write tens of MB between checkpoints, and the file would stay that large.
 */
const WAL_KEPT_BYTES = 4 * 1024 * 1024;
/** Two folders up from both src/entry/ and dist/chunks/ is the checkout. */
const THREAD_FILE = new URL('../../src/entry/wal-checkpoint-thread.mjs', import.meta.url);

export type BackgroundCheckpoints = {
  /** Ends the thread (and its connection); the writer's own close then checkpoints what is left. */
  stop(): Promise<void>;
};

type ThreadMessage = { kind: 'failed'; message: string; code?: string } | { kind: 'recovered' };

export function checkpointInBackground(
  archive: { sqlite: Database.Database; path: string },
  deps: { logger: Logger; clock: Clock; intervalMs?: number },
): BackgroundCheckpoints {
  const { sqlite } = archive;
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`);
  const failures = createFailureReporter({ activity: 'WAL checkpoints', logger: deps.logger, clock: deps.clock, backsOff: false });
  const thread = new Worker(THREAD_FILE, { workerData: { path: archive.path, intervalMs: deps.intervalMs ?? CHECKPOINT_INTERVAL_MS } });
  // The thread never keeps the process alive; a process that ends mid-checkpoint loses nothing.
  thread.unref();
  let stopping = false;
  let fellBack = false;
  // Not events.once: that rejects on the thread's 'error', which is handled below.
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  thread.on('message', (message: ThreadMessage) => {
    if (message.kind === 'recovered') failures.succeeded();
    else failures.failed(Object.assign(new Error(message.message), { code: message.code }));
  });
  // Without the thread the WAL would grow without end: the writer checkpoints again, as SQLite does.
  const fallBack = (reason: string) => {
    if (stopping || fellBack || !sqlite.open) return;
    fellBack = true;
    sqlite.pragma(`wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`);
    deps.logger.warn('the WAL checkpoint thread stopped; the writer checkpoints again', { reason });
  };
  thread.on('error', (error) => fallBack(error.message));
  thread.on('exit', (code) => fallBack(`exit code ${code}`));
  return {
    async stop() {
      stopping = true;
      // Held until the thread is gone, so a process that stops closes the archive after it.
      thread.ref();
      thread.postMessage('stop');
      await exited;
    },
  };
}
