/** The JSON log lines a test service wrote (its `logs`) whose message is `msg`, parsed. */
export function logLines(logs: readonly string[], msg: string) {
  return logs.map((line) => JSON.parse(line)).filter((line) => line.msg === msg);
}
