/** `statuswatch demo` as a child process, in a directory of the test's (its ./data), with the URLs it printed. */
import { spawnCli, type CliResult } from './cli.ts';

export type RunningDemo = { stdout: string; url(label: string): string; stop(): Promise<CliResult> };

/** Starts a demo in `cwd`, resolving once it printed its URLs; `stepSeconds` paces its scenario. */
export async function startDemo(cwd: string, stepSeconds: number): Promise<RunningDemo> {
  const { child, done } = spawnCli(['demo', '--port', '0', '--host', '127.0.0.1', '--step-seconds', String(stepSeconds)], {}, { cwd });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('Ctrl-C stops')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`demo exited early (${code}): ${stderr}`)));
  });
  return {
    stdout,
    url(label) {
      const line = stdout.split('\n').find((l) => l.trimStart().startsWith(label));
      const match = line && /(https?:\/\/\S+)/.exec(line.slice(line.indexOf(label) + label.length));
      if (!match) throw new Error(`no "${label}" URL in:\n${stdout}`);
      return match[1]!;
    },
    stop() {
      child.kill('SIGTERM');
      return done;
    },
  };
}
