/** The demo's lock file, on real files and real processes: held means refused, a dead holder is taken over. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDemoLock } from '../../src/entry/demo-lock.ts';
import { tempDir } from '../helpers/temp-archive.ts';

/** The pid of a process that has already exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

describe('demo lock', () => {
  it('refuses while a live process holds it, and frees it on release', () => {
    const lockPath = join(tempDir(), 'data', 'demo.lock');
    const first = acquireDemoLock(lockPath, './data/demo.db');
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(`${hostname()}:${process.pid}`);
    expect(() => acquireDemoLock(lockPath, './data/demo.db')).toThrow(`another demo (pid ${process.pid}) is running on ./data/demo.db`);
    first.release();
    expect(existsSync(lockPath)).toBe(false);
    acquireDemoLock(lockPath, './data/demo.db').release();
  });

  it('takes over a lock left by a demo that died, or one left empty', () => {
    const lockPath = join(tempDir(), 'demo.lock');
    for (const leftover of [`${hostname()}:${deadPid()}\n`, '']) {
      writeFileSync(lockPath, leftover);
      const lock = acquireDemoLock(lockPath, './data/demo.db');
      expect(readFileSync(lockPath, 'utf8').trim()).toBe(`${hostname()}:${process.pid}`);
      lock.release();
    }
  });

  it('leaves a lock of another host alone: its process cannot be checked from here', () => {
    const lockPath = join(tempDir(), 'demo.lock');
    writeFileSync(lockPath, 'some-other-host:12345\n');
    expect(() => acquireDemoLock(lockPath, './data/demo.db')).toThrow('another demo (pid 12345 on some-other-host)');
    expect(readFileSync(lockPath, 'utf8')).toBe('some-other-host:12345\n');
  });

  it('release does not remove a lock another demo took over since', () => {
    const lockPath = join(tempDir(), 'demo.lock');
    const lock = acquireDemoLock(lockPath, './data/demo.db');
    writeFileSync(lockPath, 'some-other-host:777\n');
    lock.release();
    expect(readFileSync(lockPath, 'utf8')).toBe('some-other-host:777\n');
  });
});
