/** The `statuswatch` command line run in the test's own process (cli.ts spawns the real command). */
import { commandFailure, runCommandLine } from '../../src/entry/cli.ts';
import type { CliResult } from './cli.ts';

/**
 * The same command line run in this process through the command's own entry (runCommandLine), its
 * output captured: for commands that print and exit, where a process start per case (seconds on a
 * shared two-core machine) tests nothing the one spawned case of the command does not.
 */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const out = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
  };
  let code: number | 'running';
  try {
    code = await runCommandLine(args, { env: { ...process.env, LOG_FORMAT: 'json', ...env }, out });
  } catch (error) {
    const failure = commandFailure(error);
    stderr += failure.message;
    code = failure.code;
  }
  if (code === 'running') throw new Error(`statuswatch ${args.join(' ')} stays running: spawn it (spawnCli) instead`);
  return { code, signal: null, stdout, stderr };
}
