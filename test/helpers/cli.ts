/** Runs the real `statuswatch` command in a child process, as a user (or a crash test) would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../src/entry/cli.mjs', import.meta.url));

/**
 * How long one run of the command may take before its test gives up. A start costs about one
 * CPU-second (more when dist/ is older than src/ and tsx compiles the sources); a loaded two-core
 * machine (load 27) stretched one `migrate` to 35 s of wall time, measured.
 */
export const CLI_RUN_TIMEOUT_MS = 90_000;

export type CliResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

export function spawnCli(args: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export function runCli(args: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  return spawnCli(args, env, options).done;
}
