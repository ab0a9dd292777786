/**
 * The archive's WAL checkpoints, on a thread of their own (wal-checkpoints.ts starts it, and says
 * why). Plain JavaScript: a thread loads this file itself, from the sources and from dist/ alike.
 *
 * Each tick in which another connection committed, a PASSIVE checkpoint copies the committed
 * pages from the WAL into the database file: it waits for no reader or writer, and a page a reader
 * still needs is left for a later tick. Under `synchronous = NORMAL` it syncs the WAL before the
 * copy and the database file after it: those syncs are what made a checkpoint slow.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, intervalMs } = workerData;
const db = new Database(path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');

/** `data_version` when the WAL was last found copied in full: it moves with every other connection's commit. */
let copiedVersion = null;
let failing = false;

function tick() {
  try {
    const version = db.pragma('data_version', { simple: true });
    if (version === copiedVersion) return;
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result.busy === 0 && result.log === result.checkpointed) copiedVersion = version;
    if (failing) {
      failing = false;
      parentPort.postMessage({ kind: 'recovered' });
    }
  } catch (error) {
    if (failing) return;
    failing = true;
    parentPort.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error), code: error?.code });
  }
}

const timer = setInterval(tick, intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
