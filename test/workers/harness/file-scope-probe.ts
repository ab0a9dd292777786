/**
 * The check of test/workers/file-scope-a.test.ts and file-scope-b.test.ts: each file leaves
 * behind what no file may pass to the next (every D1 slot open, and a mark at module scope as
 * the Worker's app per env is one), and whichever runs second must find none of
 * it, as it would in a Miniflare of its own (test/helpers/file-scope.ts).
 */
import { describe, expect, it } from 'vitest';
import { HARNESS_D1_BINDINGS } from './d1-bindings.ts';
import { openD1Slot } from './d1-slots.ts';

let marked = false;

export function describeFileScope(file: string): void {
  describe(`file scope (${file})`, () => {
    it('starts with no state left in the modules by another file, and every D1 slot free', async () => {
      expect(marked).toBe(false);
      marked = true;

      // Every slot taken and none released: a file after this one finds them all open if slots outlive a file.
      for (const _ of HARNESS_D1_BINDINGS) await openD1Slot();
    });
  });
}
