/**
 * A production install (`npm ci --omit=dev`) has no esbuild. The build run by `prepare` must
 * then keep a dist/ that is up to date (built elsewhere and copied in), and otherwise stop with
 * one line that says what to run, not a stack trace. Run on a copy of the two build scripts in a
 * folder with no node_modules above it, as such an install is.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('../../src/entry/', import.meta.url));

function installWithoutEsbuild(): string {
  const root = mkdtempSync(join(tmpdir(), 'statuswatch-prod-'));
  mkdirSync(join(root, 'src', 'entry'), { recursive: true });
  for (const file of ['build.mjs', 'built-output.mjs']) copyFileSync(join(ENTRY, file), join(root, 'src', 'entry', file));
  writeFileSync(join(root, 'src', 'entry', 'cli.ts'), 'export {};\n');
  return root;
}

const build = (root: string) => spawnSync(process.execPath, [join(root, 'src', 'entry', 'build.mjs')], { cwd: root, encoding: 'utf8' });

describe('the build where esbuild is not installed', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('stops with one line naming the install that works, exit 1, when there is no dist/ to keep', () => {
    root = installWithoutEsbuild();
    const result = build(root);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/esbuild, a devDependency, is not installed.*Fix: install with `npm ci`, then `npm prune --omit=dev`/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('keeps a dist/ built after the last source change, exit 0', () => {
    root = installWithoutEsbuild();
    mkdirSync(join(root, 'dist'));
    const stamp = join(root, 'dist', '.build-stamp');
    writeFileSync(stamp, '');
    const later = Date.now() / 1000 + 60;
    utimesSync(stamp, later, later);
    const result = build(root);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/dist\/ is up to date, so it is kept as built/);
  });
});
