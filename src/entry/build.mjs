// `npm run build`: bundles src/ into dist/ with esbuild, then stamps the build so the launcher
// (cli.mjs) knows dist/ matches the sources. `--if-stale` skips the bundle when it already does.
//
// One bundle, not a file per module: a start of the command loaded about 1,000 files of ours and
// of node_modules one by one (resolving, reading and compiling each), and serve took 1,088 ms p50
// to its first answer; from the bundle 660 ms (measured on a 2-core machine, 9 starts each,
// interleaved). Each command's own modules (cli.ts imports them when it runs) stay chunks of
// their own, so a start still loads only what its command uses. Types are not checked here:
// `npm run typecheck` does that, as CI does before the tests.
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILD_STAMP, bundledInputsDigest, DIST_DIR, isBuildFresh } from './built-output.mjs';

if (process.argv.includes('--if-stale') && isBuildFresh()) process.exit(0);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // `npm ci --omit=dev` leaves esbuild out. A dist/ built elsewhere and copied in still runs;
  // without one there is nothing to run, and the fix is one line, not a stack trace.
  if (isBuildFresh()) {
    console.error('statuswatch: esbuild is not installed (a devDependency); dist/ is up to date, so it is kept as built.');
    process.exit(0);
  }
  console.error(
    'statuswatch: cannot build dist/: esbuild, a devDependency, is not installed (npm ci --omit=dev). Fix: install with `npm ci`, then `npm prune --omit=dev`, which keeps the dist/ it built (docs/operations.md, "A production install").',
  );
  process.exit(1);
}
const startedMs = Date.now();
// What the bundle is made from besides src/, as it is now: the stamp records it.
const inputsDigest = bundledInputsDigest();
// A file removed from src/ must not live on in dist/.
rmSync(DIST_DIR, { recursive: true, force: true });
try {
  await esbuild.build({
    absWorkingDir: fileURLToPath(new URL('../..', import.meta.url)),
    entryPoints: ['src/entry/cli-process.ts'],
    outbase: 'src',
    outdir: 'dist',
    // Every output two folders below the checkout (dist/entry, dist/chunks), as the sources are
    // below it: the archive's migrations (drizzle/) and public/ are found from import.meta.url.
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    // A native addon: loaded from node_modules at run time.
    external: ['better-sqlite3'],
    // CommonJS packages in the bundle call require() for Node's own modules; ESM has none.
    banner: { js: "import { createRequire as __statuswatchRequire } from 'node:module'; const require = __statuswatchRequire(import.meta.url);" },
    // `node --enable-source-maps` then names the source files and lines in a stack trace.
    sourcemap: 'linked',
    logLevel: 'warning',
  });
} catch {
  // esbuild has printed what failed, with the file and line.
  process.exit(1);
}
// The stamp's time is the bundle's start: a source saved during the build still counts as newer.
writeFileSync(BUILD_STAMP, `${inputsDigest}\n`);
utimesSync(BUILD_STAMP, startedMs / 1000, startedMs / 1000);
console.error(`statuswatch: built dist/ in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
