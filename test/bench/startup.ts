/**
 * Start-up: from spawning `statuswatch serve` to its first answered `/healthz`, running the
 * JavaScript that `npm ci` builds (dist/) against the TypeScript sources compiled by tsx on every
 * start (how `npm start` ran before the build), with a bare Node HTTP server as the floor.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_CLI, isBuildFresh } from '../../src/entry/built-output.mjs';
import { tempDir } from '../helpers/temp-archive.ts';
import { expectBench, type SectionReport } from './harness.ts';
import { interleave, summarize } from './stats.ts';
import { heading, ms, ratio, table } from './table.ts';

export type StartupOptions = { rounds: number; warmUpRounds: number };

const CLI_SOURCE = fileURLToPath(new URL('../../src/entry/cli-process.ts', import.meta.url));
/** Logs its URL as serve does, so both are timed to the same first answer. */
const BARE_SERVER = `const s = require('node:http').createServer((q, r) => r.end('{"ok":true}')).listen(0, '127.0.0.1', () => console.error(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port })))`;
/** Set, so no start writes a key file or logs a warning. */
const SECRET_KEY_HEX = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
/** A start that takes longer than this is broken, not slow. */
const START_TIMEOUT_MS = 30_000;

/**
 * Spawns `args` on port 0, reads its URL from the "serving" log line, polls /healthz until it
 * answers, kills the process; resolves when it answered. Port 0, because a port found free and then
 * passed on could be taken by anything else on the machine in between.
 */
async function startAndAnswer(args: string[]): Promise<void> {
  const dir = tempDir('statuswatch-startup-');
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'archive.db'),
      STATUS_URL: 'http://127.0.0.1:9/',
      POLL_ON_START: 'false',
      SECRET_KEY: SECRET_KEY_HEX,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      expectBench(child.exitCode === null, `${args.join(' ')} exited with ${child.exitCode} before answering: ${stderr.slice(-500)}`);
      const url = /"url":"(http:[^"]+)"/.exec(stderr)?.[1];
      const answered =
        url !== undefined &&
        (await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        ));
      if (answered) return;
      await new Promise((r) => setTimeout(r, 5));
    }
    expectBench(false, `${args.join(' ')} did not answer /healthz within ${START_TIMEOUT_MS} ms`);
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchStartup(options: StartupOptions): Promise<SectionReport> {
  expectBench(isBuildFresh(), 'dist/ is missing or older than src/ or package-lock.json: run `npm run build` first');
  const cases = [
    { name: 'bare Node HTTP server', run: () => startAndAnswer(['-e', BARE_SERVER]) },
    { name: 'serve from dist/ (npm start now)', run: () => startAndAnswer([DIST_CLI, 'serve']) },
    { name: 'serve from sources through tsx (before)', run: () => startAndAnswer(['--import', 'tsx', CLI_SOURCE, 'serve']) },
  ];
  await interleave(cases, options.warmUpRounds);
  const samples = await interleave(cases, options.rounds);
  const p50 = (name: string) => summarize(samples.get(name)!).p50;
  const built = p50(cases[1]!.name);
  const sources = p50(cases[2]!.name);
  const rows = cases.map((c) => {
    const s = summarize(samples.get(c.name)!);
    return [c.name, ms(s.p50), ms(s.p95), ratio(s.p50 / sources)];
  });
  const text = [
    heading('Start-up: spawn to first answered /healthz'),
    table(['case', 'p50 ms', 'p95 ms', 'vs tsx'], rows),
    `\n${options.rounds} starts each, interleaved; an empty archive is created and migrated by each start.`,
  ].join('\n');
  return { text, goals: [{ name: 'start-up from dist/ faster than through tsx', met: built < sources, detail: `${ms(built)} vs ${ms(sources)} ms p50` }] };
}
