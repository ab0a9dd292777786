import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runToEnd } from './run-to-end.ts';

/** Whether a process of this pid still runs: killed, it can stay a zombie until something reaps it (Linux /proc). */
const running = (pid: number) => {
  try {
    // The state follows the command's name in parentheses: Z is a zombie, X dead.
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
};

describe('runToEnd', () => {
  it("gives a command's output when it ends well", async () => {
    await expect(runToEnd(process.execPath, ['-e', 'console.log("done")'], { timeoutMs: 30_000 })).resolves.toMatchObject({ stdout: 'done\n' });
  });

  it('fails naming the command when it exits with an error', async () => {
    await expect(runToEnd(process.execPath, ['-e', 'console.error("broken"); process.exit(3)'], { timeoutMs: 30_000 })).rejects.toThrow(
      /exit code 3.*\n.*broken/s,
    );
  });

  it('ends a command that hangs with a child holding its output open, child and all, at the deadline', async () => {
    // The command starts a child that inherits its pipes and would sleep for a minute, prints the
    // child's pid, then hangs itself: as wrangler did once its workerd died.
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'inherit' });
      console.log(child.pid);
      setInterval(() => {}, 1000);`;
    const started = Date.now();
    const error = await runToEnd(process.execPath, ['-e', script], { timeoutMs: 1_000 }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/did not end within 1000 ms/);
    expect(Date.now() - started).toBeLessThan(20_000);
    const childPid = Number(/(\d+)\s*$/.exec((error as Error).message)?.[1]);
    expect(childPid).toBeGreaterThan(0);
    expect(running(childPid)).toBe(false);
  });
});
