// Where the bundled JavaScript lives, and whether it still matches what it was built from.
// Plain JavaScript on purpose: it runs before anything is compiled.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SRC_DIR = fileURLToPath(new URL('..', import.meta.url));
export const DIST_DIR = fileURLToPath(new URL('../../dist', import.meta.url));
export const DIST_CLI = fileURLToPath(new URL('../../dist/entry/cli-process.js', import.meta.url));
/**
 * Written by `npm run build` after the bundle is written: its time is when dist/ last matched src/,
 * its text the digest of BUNDLED_INPUTS then (bundledInputsDigest).
 */
export const BUILD_STAMP = fileURLToPath(new URL('../../dist/.build-stamp', import.meta.url));
/**
 * What the bundle holds besides src/: the packages' code (npm records a change of them in the lock
 * file, and `npm install PACKAGE` does not run the build) and the compiler settings esbuild reads.
 * Compared by content, not time: `npm prune` rewrites the lock file unchanged.
 */
const BUNDLED_INPUTS = ['package-lock.json', 'package.json', 'tsconfig.json'].map((name) => fileURLToPath(new URL(`../../${name}`, import.meta.url)));

/** The newest modification time of any file under `dir`, in ms (0 for an empty or missing folder). */
function newestMtimeMs(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const mtimeMs = statSync(`${entry.parentPath}/${entry.name}`).mtimeMs;
    if (mtimeMs > newest) newest = mtimeMs;
  }
  return newest;
}

/** A file's modification time in ms, 0 when there is none. */
function mtimeMsOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** SHA-256 of BUNDLED_INPUTS' contents, a missing one as empty: what the build stamp records. */
export function bundledInputsDigest() {
  const hash = createHash('sha256');
  for (const path of BUNDLED_INPUTS) {
    let content = '';
    try {
      content = readFileSync(path);
    } catch {
      // Not there (a copied-in install without it): counts as empty.
    }
    hash.update(`${content.length}:`).update(content);
  }
  return hash.digest('hex');
}

/**
 * True when dist/ was built after the last change to src/, from BUNDLED_INPUTS as they are. About 150 stat calls (a few ms): cheap
 * next to the second it saves by not compiling TypeScript on every start.
 */
export function isBuildFresh() {
  let stampMs;
  try {
    stampMs = statSync(BUILD_STAMP).mtimeMs;
  } catch {
    return false;
  }
  if (newestMtimeMs(SRC_DIR) > stampMs) return false;
  // Read and hashed only when one of them was written since the build (a few ms for the lock file).
  if (BUNDLED_INPUTS.every((path) => mtimeMsOf(path) <= stampMs)) return true;
  return readFileSync(BUILD_STAMP, 'utf8').trim() === bundledInputsDigest();
}
