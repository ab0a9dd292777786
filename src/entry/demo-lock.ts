/**
 * One demo at a time per data folder. The demo starts from a fresh database, so it must know
 * that no other demo has that database open: a lock file made with O_EXCL holds `host:pid`, and
 * one left by a demo that died on this host (SIGKILL, a crash) is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { ConfigError } from '../config.ts';
import { isLeaseHolderGone } from './node.ts';

export type DemoLock = { release(): void };

export function acquireDemoLock(lockPath: string, databasePath: string): DemoLock {
  mkdirSync(dirname(lockPath), { recursive: true });
  const holder = `${hostname()}:${process.pid}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockPath, holder + '\n', { flag: 'wx' });
      return {
        release() {
          if (readHolder(lockPath) === holder) rmSync(lockPath, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const other = readHolder(lockPath);
    // Empty or unreadable: a demo died between creating the file and writing to it.
    if (other === null || !/^[^:]+:\d+$/.test(other) || isLeaseHolderGone(other)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    const pid = other.split(':')[1];
    throw new ConfigError(
      `another demo (pid ${pid}${other.startsWith(hostname() + ':') ? '' : ` on ${other.split(':')[0]}`}) is running on ${databasePath}; this one left it alone. Fix: open the running demo's URLs, or stop it (Ctrl-C) and start again`,
    );
  }
  throw new ConfigError(`could not take the demo lock ${lockPath}. Fix: make sure no demo runs, then delete that file`);
}

function readHolder(lockPath: string): string | null {
  try {
    return readFileSync(lockPath, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
