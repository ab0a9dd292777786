// `npm test`: the `node` and `workers` vitest projects, side by side in two vitest processes.
// One vitest process runs its projects' files in groups, one group after the other, and the
// workers project (one file at a time) is a group of its own, so it used to start only when the
// node project's last file was done. Each alone leaves a core idle most of the time; together
// they keep both busy. Plain JavaScript: it runs before anything is compiled.
//
// The node project's tests start the real command, in 58 places (some in loops). When src/ changed
// since dist/ was built, each start compiles src/ through tsx: 3.6 CPU-s against 1.9 from dist/
// as it was (measured; serve about 1.0 from today's bundle), so dist/ is rebuilt first (`build.mjs
// --if-stale`: a few ms when it is fresh, as after `npm ci`; about 2 s when not), while the
// workers project, which never starts the command, begins.
// A build that fails leaves dist/ stale and the command on tsx, as before: the tests still run.
//
// Arguments go to both processes (`npm test -- test/http` filters both). A JSON report
// (`--outputFile.json=FILE`, as CI asks for one) is written by each process to a file of its own,
// then merged into FILE, one report with the results of both.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECTS = ['node', 'workers'];

/** The projects whose tests start the `statuswatch` command (src/entry/cli.mjs), which runs dist/ when it is fresh. */
const STARTS_THE_COMMAND = ['node'];
const BUILD = fileURLToPath(new URL('../src/entry/build.mjs', import.meta.url));

const OUTPUT_JSON = '--outputFile.json';

/**
 * The vitest arguments of one project's process: the caller's, with the project named, a JSON
 * report to `reportFile` (beside the default reporter when the caller named no reporter, as
 * vitest drops its default once any is named), and the caller's own JSON output file left out.
 * `--passWithNoTests`: a filter may match files of one project only; the merged report says
 * whether anything ran at all.
 */
export function projectArgs(project, args, reportFile) {
  const kept = [];
  let reporters = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === OUTPUT_JSON) {
      i++; // its value is the next argument
      continue;
    }
    if (arg.startsWith(`${OUTPUT_JSON}=`)) continue;
    if (arg === '--reporter' || arg.startsWith('--reporter=')) reporters++;
    kept.push(arg);
  }
  const reporter = reporters === 0 ? ['--reporter=default', '--reporter=json'] : ['--reporter=json'];
  const json = kept.includes('--reporter=json') ? [] : reporter;
  return ['run', '--project', project, ...kept, ...json, `${OUTPUT_JSON}=${reportFile}`, '--passWithNoTests'];
}

/** The JSON output file the caller asked for, if any. */
export function requestedReport(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === OUTPUT_JSON) return args[i + 1];
    if (args[i].startsWith(`${OUTPUT_JSON}=`)) return args[i].slice(OUTPUT_JSON.length + 1);
  }
  return undefined;
}

/** Counts add up, flags hold if either holds, lists join; the earliest start; success only if both succeeded. */
function mergeValues(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a || b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const merged = { ...a };
    for (const [key, value] of Object.entries(b)) merged[key] = key in a ? mergeValues(a[key], value) : value;
    return merged;
  }
  return a ?? b;
}

/** One vitest JSON report holding the results of several; a missing report (its process died) is a failure. */
export function mergeReports(reports) {
  const present = reports.filter((r) => r !== undefined);
  if (present.length === 0) return undefined;
  const merged = present.reduce((a, b) => mergeValues(a, b));
  merged.startTime = Math.min(...present.map((r) => r.startTime));
  merged.success = present.length === reports.length && present.every((r) => r.success) && merged.numTotalTestSuites > 0;
  return merged;
}

/** The exit status of the whole run: the first failure's, 1 when nothing ran at all. */
export function exitStatus(codes, merged) {
  const failed = codes.find((code) => code !== 0);
  if (failed !== undefined) return failed;
  return merged && merged.numTotalTestSuites > 0 ? 0 : 1;
}

/** Copies a child's stream to ours a whole line at a time, so the two processes' lines never interleave mid-line. */
function pipeLines(from, to) {
  let pending = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    pending += chunk;
    const end = pending.lastIndexOf('\n');
    if (end === -1) return;
    to.write(pending.slice(0, end + 1));
    pending = pending.slice(end + 1);
  });
  from.on('end', () => {
    if (pending !== '') to.write(pending);
  });
}

function readReport(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

async function main() {
  const args = process.argv.slice(2);
  const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'statuswatch-npm-test-'));
  const startedMs = Date.now();
  // The children write to pipes; colours only if ours would have them.
  const env = { ...process.env, ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}) };
  const children = new Set();
  let stopped = null;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopped = signal;
      for (const child of children) child.kill(signal);
    });
  }
  /** A child whose output reaches ours line by line; resolves with its exit status. */
  const start = (command, commandArgs) => {
    const child = spawn(process.execPath, [command, ...commandArgs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    pipeLines(child.stdout, process.stdout);
    pipeLines(child.stderr, process.stderr);
    return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  };
  const built = start(BUILD, ['--if-stale']);
  const runs = PROJECTS.map((project) => {
    const reportFile = join(dir, `${project}.json`);
    const run = () => (stopped ? 1 : start(vitest, projectArgs(project, args, reportFile)));
    return { project, reportFile, done: STARTS_THE_COMMAND.includes(project) ? built.then(run) : run() };
  });
  const codes = await Promise.all(runs.map((run) => run.done));
  const reports = runs.map((run) => readReport(run.reportFile));
  rmSync(dir, { recursive: true, force: true });
  const merged = mergeReports(reports);
  const requested = requestedReport(args);
  if (requested && merged) writeFileSync(requested, JSON.stringify(merged));
  const status = exitStatus(codes, merged);
  const counts = merged
    ? `${merged.numPassedTests} passed, ${merged.numFailedTests} failed, ${merged.numPendingTests + merged.numTodoTests} skipped`
    : 'no report';
  const projects = runs.map((run, i) => `${run.project} ${codes[i] === 0 ? 'ok' : `exit ${codes[i]}`}`).join(', ');
  console.log(`\nnpm test: ${counts} (${projects}) in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
  process.exitCode = status;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
