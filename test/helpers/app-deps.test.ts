/**
 * The shared deps builder must stay runnable where Node is not (a Workers pool over D1): everything
 * it imports, followed through the source, names only Web-standard packages. The runtime's own
 * parts (SQLite, undici, nodemailer, sanitize-html) come in as ports from node-app-ports.ts.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
/** Packages that run on Workers as they run on Node (drizzle-orm: the Worker's own store runs on it over D1). */
const RUNTIME_FREE_PACKAGES = [/^hono(\/|$)/, /^zod$/, /^entities$/, /^jose$/, /^email-addresses$/, /^drizzle-orm(\/|$)/];
const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|^\s*import\s+'([^']+)'/gm;

/** Every bare package the file imports, directly or through the relative imports it follows. */
function packagesImportedBy(entry: string): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = (match[1] ?? match[2])!;
      if (spec.startsWith('.')) walk(join(dirname(file), spec));
      else if (!found.has(spec)) found.set(spec, relative(ROOT, file));
    }
  };
  walk(entry);
  return found;
}

function nodeOnlyImportsOf(entry: string): string[] {
  const packages = packagesImportedBy(entry);
  return [...packages].filter(([name]) => !RUNTIME_FREE_PACKAGES.some((allowed) => allowed.test(name))).map(([name, from]) => `${name} (imported by ${from})`);
}

describe('buildServices', () => {
  it('imports nothing but Web-standard packages, so the Worker and the Node entry build the same services', () => {
    const packages = packagesImportedBy(join(ROOT, 'src/entry/services.ts'));
    // The walk reached the store the services run on, over whatever connection the runtime hands in.
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['drizzle-orm', 'hono']));
    expect(nodeOnlyImportsOf(join(ROOT, 'src/entry/services.ts'))).toEqual([]);
  });
});

describe('buildAppDeps', () => {
  it('imports nothing but Web-standard packages, through everything it reaches', () => {
    const packages = packagesImportedBy(join(HERE, 'app-deps.ts'));
    // The walk itself works: it reached the Hono context type and the app's zod schemas.
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['hono', 'zod']));
    const nodeOnly = [...packages].filter(([name]) => !RUNTIME_FREE_PACKAGES.some((allowed) => allowed.test(name)));
    expect(nodeOnly.map(([name, from]) => `${name} (imported by ${from})`)).toEqual([]);
  });
});
