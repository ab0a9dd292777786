/**
 * The service is assembled in one place (src/entry/services.ts): the Node entry, the Worker and the
 * tests' app builder hand in their ports and call it, so none of them can wire the poller or the
 * deliverer differently from the others.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Files under src/ and test/helpers/ that call `name(`, the definition excluded. */
function callersOf(name: string): string[] {
  const call = new RegExp(`(?<!function )\\b${name}\\(`);
  return [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'test/helpers'))]
    .filter((file) => call.test(readFileSync(file, 'utf8')))
    .map((file) => relative(ROOT, file));
}

describe('buildServices', () => {
  it('is the one place the poller and the deliverer are made', () => {
    expect(callersOf('createPoller')).toEqual(['src/entry/services.ts']);
    expect(callersOf('createDeliverer')).toEqual(['src/entry/services.ts']);
  });
});
