/**
 * The node project's files share forks but not our modules (vitest.config.ts, test/helpers/file-scope.ts):
 * its two probe files, run in one fork, each find no mark left by the other.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/temp-archive.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const PROBES = ['test/file-scope/a.test.ts', 'test/file-scope/b.test.ts'];

describe('node project file scope', () => {
  it('gives each file its own modules when two files run one after the other in one fork', { timeout: 120_000 }, async () => {
    const dir = tempDir('statuswatch-file-scope-');
    const log = join(dir, 'pids.log');
    const report = join(dir, 'report.json');
    const args = [VITEST, 'run', '--project', 'node', ...PROBES, '--no-file-parallelism', '--reporter=json', `--outputFile.json=${report}`];
    let outcome: Record<string, unknown>;
    try {
      const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore', env: { ...process.env, FILE_SCOPE_LOG: log } });
      const code = await new Promise((resolve) => child.on('close', resolve));

      const results = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number };
      const pids = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ')[0]);
      outcome = { code, passed: results.numPassedTests, failed: results.numFailedTests, processes: new Set(pids).size, files: pids.length };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Both passed, and in one process: a second file that shared the first one's modules would fail.
    expect(outcome).toEqual({
      code: 0,
      passed: 2,
      failed: 0,
      processes: 1,
      files: 2,
    });
  });
});
