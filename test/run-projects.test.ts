/** `npm test` runs the node and workers projects side by side and reports them as one run. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exitStatus, mergeReports, PROJECTS, projectArgs, requestedReport, type VitestReport } from './run-projects.mjs';
import { tempDir } from './helpers/temp-archive.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNNER = join(ROOT, 'test', 'run-projects.mjs');

function report(overrides: Partial<VitestReport>): VitestReport {
  return {
    numTotalTestSuites: 1,
    numPassedTestSuites: 1,
    numFailedTestSuites: 0,
    numPendingTestSuites: 0,
    numTotalTests: 2,
    numPassedTests: 2,
    numFailedTests: 0,
    numPendingTests: 0,
    numTodoTests: 0,
    snapshot: { added: 0, failure: false, filesRemovedList: [], total: 0 },
    startTime: 1_000,
    success: true,
    testResults: [{ name: 'a.test.ts' }],
    ...overrides,
  };
}

function runNpmTest(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [RUNNER, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

describe('npm test', () => {
  it('is the runner of both projects, which are the ones vitest.config.ts gives npm test', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe('node test/run-projects.mjs');
    expect(PROJECTS).toEqual(['node', 'workers']);
  });

  it("hands each project the caller's arguments, with a JSON report of its own beside the default reporter", () => {
    expect(projectArgs('node', ['test/http'], '/tmp/r/node.json')).toEqual([
      'run',
      '--project',
      'node',
      'test/http',
      '--reporter=default',
      '--reporter=json',
      '--outputFile.json=/tmp/r/node.json',
      '--passWithNoTests',
    ]);
    // CI's form: its reporters are kept, its output file is the runner's to write.
    const ci = ['--reporter=default', '--reporter=json', '--outputFile.json=test-results/vitest.json'];
    expect(projectArgs('workers', ci, '/tmp/r/workers.json')).toEqual([
      'run',
      '--project',
      'workers',
      '--reporter=default',
      '--reporter=json',
      '--outputFile.json=/tmp/r/workers.json',
      '--passWithNoTests',
    ]);
    expect(requestedReport(ci)).toBe('test-results/vitest.json');
    expect(requestedReport(['--outputFile.json', 'out.json'])).toBe('out.json');
    expect(projectArgs('node', ['--outputFile.json', 'out.json', '--reporter=dot'], 'n.json')).toEqual([
      'run',
      '--project',
      'node',
      '--reporter=dot',
      '--reporter=json',
      '--outputFile.json=n.json',
      '--passWithNoTests',
    ]);
  });

  it('merges the two reports into one: counts added, results joined, the earliest start, failed if either failed', () => {
    const merged = mergeReports([
      report({}),
      report({ numTotalTests: 3, numPassedTests: 2, numFailedTests: 1, startTime: 500, success: false, testResults: [{ name: 'b.test.ts' }] }),
    ])!;
    expect(merged.numTotalTests).toBe(5);
    expect(merged.numPassedTests).toBe(4);
    expect(merged.numFailedTests).toBe(1);
    expect(merged.startTime).toBe(500);
    expect(merged.success).toBe(false);
    expect(merged.testResults).toEqual([{ name: 'a.test.ts' }, { name: 'b.test.ts' }]);
    expect(mergeReports([report({}), report({})])!.success).toBe(true);
    // A process that wrote no report failed, whatever the other says.
    expect(mergeReports([report({}), undefined])!.success).toBe(false);
    expect(exitStatus([0, 0], mergeReports([report({}), report({})]))).toBe(0);
    expect(exitStatus([0, 1], mergeReports([report({}), report({})]))).toBe(1);
    // A filter that matched no file in either project ran nothing: a failure, as vitest's own.
    expect(exitStatus([0, 0], mergeReports([report({ numTotalTestSuites: 0 }), report({ numTotalTestSuites: 0 })]))).toBe(1);
  });

  it('runs a filter that matches files of one project, and writes the one report CI reads', { timeout: 120_000 }, async () => {
    const out = join(tempDir(), 'vitest.json');
    const run = await runNpmTest(['test/module-homes.test.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);
    expect(run.code, run.stdout).toBe(0);
    const merged = JSON.parse(readFileSync(out, 'utf8')) as VitestReport;
    expect(merged.success).toBe(true);
    expect(merged.testResults.map((r) => (r as { name: string }).name.replace(ROOT, ''))).toEqual(['test/module-homes.test.ts']);
    expect(merged.numFailedTests).toBe(0);
    expect(run.stdout).toContain('(node ok, workers ok)');

    const nothing = await runNpmTest(['test/no-such-file.test.ts']);
    expect(nothing.code).toBe(1);
  });
});
