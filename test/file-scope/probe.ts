/**
 * The check of a.test.ts and b.test.ts beside it: each file sets a mark at module scope, as the
 * app's caches and budgets are, and must not find one left by the other. In a plain run they may
 * land in different forks; test/file-scope.test.ts runs them in one fork, where a shared module
 * graph would hand the second file the first one's mark. FILE_SCOPE_LOG, when set, names a file
 * each appends its process id to, so that test sees they did share a process.
 */
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

let markedBy: string | null = null;

export function describeFileScope(file: string): void {
  describe(`file scope (${file})`, () => {
    it('starts with no state left in our modules by another file', () => {
      expect(markedBy).toBeNull();
      markedBy = file;
      const log = process.env.FILE_SCOPE_LOG;
      if (log) appendFileSync(log, `${process.pid} ${file}\n`);
    });
  });
}
