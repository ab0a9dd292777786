/**
 * dist/ bundles the packages' code too, so it is stale once the lock file changes, though no
 * source did (`npm install PACKAGE` does not run the build), and not when npm only rewrote the
 * lock file as it was (`npm prune` does). Run on a copy of the build scripts with a one-line
 * entry, its node_modules those of this checkout.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOCK = JSON.stringify({ name: 'copy', lockfileVersion: 3, packages: { 'node_modules/a': { version: '1.0.0' } } });

function checkoutCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'statuswatch-freshness-'));
  mkdirSync(join(root, 'src', 'entry'), { recursive: true });
  for (const file of ['build.mjs', 'built-output.mjs']) copyFileSync(join(ROOT, 'src', 'entry', file), join(root, 'src', 'entry', file));
  writeFileSync(join(root, 'src', 'entry', 'cli-process.ts'), 'export const started = true;\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
  writeFileSync(join(root, 'package.json'), '{"name":"copy","type":"module"}\n');
  writeFileSync(join(root, 'package-lock.json'), LOCK);
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

/** `build.mjs --if-stale`: whether it built (it says so on stderr), or kept dist/ as it was. */
function buildIfStale(root: string): 'built' | 'kept' {
  const result = spawnSync(process.execPath, [join(root, 'src', 'entry', 'build.mjs'), '--if-stale'], { cwd: root, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return /built dist\//.test(result.stderr) ? 'built' : 'kept';
}

/** Sets a file's times a minute ahead: written after the build. */
function writtenLater(path: string, content?: string): void {
  if (content !== undefined) writeFileSync(path, content);
  const later = Date.now() / 1000 + 60;
  utimesSync(path, later, later);
}

describe("dist/'s freshness", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('rebuilds when the lock file changed since the build, not when it was only written again as it was', () => {
    root = checkoutCopy();
    expect(buildIfStale(root)).toBe('built');
    expect(buildIfStale(root)).toBe('kept');

    writtenLater(join(root, 'package-lock.json'), LOCK); // npm prune: the same text, a new time
    expect(buildIfStale(root)).toBe('kept');

    writtenLater(join(root, 'package-lock.json'), LOCK.replace('1.0.0', '1.0.1')); // npm install a@1.0.1
    expect(buildIfStale(root)).toBe('built');
    expect(buildIfStale(root)).toBe('kept');
  });
});
