/**
 * Runs a tool's command (wrangler) to its end, within a deadline. A tool can hang after a child of
 * its own died under load (a `wrangler d1 migrations apply` whose workerd died waited 20 minutes),
 * and that child holds the pipes open: so the command runs in a process group of its own, which
 * the deadline kills whole, and the test fails at once, naming the command.
 */
import { spawn } from 'node:child_process';

export type RunToEndOptions = { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number };

export function runToEnd(command: string, args: readonly string[], options: RunToEndOptions): Promise<{ stdout: string; stderr: string }> {
  const named = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever the command left behind goes with it.
      killGroup(child.pid);
      if (!timedOut && code === 0) return resolve({ stdout, stderr });
      const why = timedOut ? `did not end within ${options.timeoutMs} ms` : `ended with ${signal ?? `exit code ${code}`}`;
      reject(new Error(`${named} ${why}; its last output:\n${(stdout + stderr).slice(-2000)}`));
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}
