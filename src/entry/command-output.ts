/** Where a command writes what a person or a tool reads: the process's streams, or what a test captures. */
export type CommandOutput = { stdout(text: string): void; stderr(text: string): void };

export const processOutput: CommandOutput = {
  stdout: (text) => {
    process.stdout.write(text);
  },
  stderr: (text) => {
    process.stderr.write(text);
  },
};
