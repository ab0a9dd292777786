/**
 * Time and wake-ups belong to the runtime: src/core, src/app and src/http schedule nothing, so the
 * same code runs under Node's timers and under Workers' Queue and cron. A source scan of those
 * folders; the one exception is event-loop-slices.ts's zero-delay yield, which both runtimes have.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const FOLDERS = ['src/core', 'src/app', 'src/http'];
const TIMER_API = /\b(setTimeout|setInterval|setImmediate|clearTimeout|clearInterval|clearImmediate)\b|\.unref\b|\.ref\(\)/;
const YIELD_FILE = 'src/app/event-loop-slices.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|tsx|mts|js|mjs)$/.test(name))
    .map((name) =>
      relative(ROOT, join(ROOT, folder, name))
        .split('\\')
        .join('/'),
    );
}

/** `file:line: text` for every line of code (whole-line comments aside) that names a timer API. */
function timerUses(file: string): string[] {
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, index) => {
      const code = line.trim();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return [];
      return TIMER_API.test(code) ? [`${file}:${index + 1}: ${code}`] : [];
    });
}

describe('the runtime-free folders schedule nothing', () => {
  it('names no timer API outside the zero-delay yield', () => {
    const files = FOLDERS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain(YIELD_FILE);
    expect(files.filter((f) => f !== YIELD_FILE).flatMap(timerUses)).toEqual([]);
  });

  it('keeps the yield zero-delay: it gives way to pending I/O, it does not wait', () => {
    const uses = timerUses(YIELD_FILE);
    expect(uses.length).toBeGreaterThan(0);
    for (const use of uses) {
      expect(use).not.toMatch(/setInterval|clear(Timeout|Interval|Immediate)|\.unref/);
      for (const [, args] of use.matchAll(/setTimeout\(([^)]*)\)/g)) expect(args).toMatch(/,\s*0$/);
    }
  });
});
