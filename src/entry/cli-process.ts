/** The `statuswatch` command as a process: its arguments and environment in, its exit code out (cli.mjs starts it). */
import { commandFailure, runCommandLine } from './cli.ts';
import { processOutput } from './command-output.ts';

runCommandLine(process.argv.slice(2), { env: process.env, out: processOutput }).then(
  (code) => {
    if (code !== 'running') process.exitCode = code;
  },
  (error) => {
    const failure = commandFailure(error);
    process.stderr.write(failure.message);
    process.exitCode = failure.code;
    // A start that failed half way may leave a server or timer open: the command still ends.
    setTimeout(() => process.exit(), 2000).unref();
  },
);
