// `npm run build`: compiles src/ to dist/ with tsc, then stamps the build so the launcher
// (cli.mjs) knows dist/ matches the sources. `--if-stale` skips the compile when it already does.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BUILD_STAMP, DIST_DIR, isBuildFresh } from './built-output.mjs';

if (process.argv.includes('--if-stale') && isBuildFresh()) process.exit(0);

// typescript's exports hide bin/tsc: find it beside its package.json.
let tsc;
try {
  tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  // `npm ci --omit=dev` leaves typescript out. A dist/ built elsewhere and copied in still runs;
  // without one there is nothing to run, and the fix is one line, not a stack trace.
  if (isBuildFresh()) {
    console.error('statuswatch: typescript is not installed (a devDependency); dist/ is up to date, so it is kept as built.');
    process.exit(0);
  }
  console.error(
    'statuswatch: cannot build dist/: typescript, a devDependency, is not installed (npm ci --omit=dev). Fix: install with `npm ci`, then `npm prune --omit=dev`, which keeps the dist/ it built (docs/operations.md, "A production install").',
  );
  process.exit(1);
}
const startedMs = Date.now();
// A file removed from src/ must not live on in dist/.
rmSync(DIST_DIR, { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
mkdirSync(DIST_DIR, { recursive: true });
// The stamp's time is the compile's start: a source saved during the compile still counts as newer.
writeFileSync(BUILD_STAMP, '');
utimesSync(BUILD_STAMP, startedMs / 1000, startedMs / 1000);
console.error(`statuswatch: built dist/ in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
