/** node-cron's messages go through the service's structured logger, at a level that says what they mean. */
import cron from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cronLogger } from '../../src/adapters/cron-logger.ts';
import type { LogFields, Logger } from '../../src/core/ports.ts';

type Line = { level: string; message: string; fields?: LogFields };

function collectingLogger(lines: Line[]): Logger {
  const at = (level: string) => (message: string, fields?: LogFields) => lines.push({ level, message, fields });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('cronLogger', () => {
  afterEach(() => vi.restoreAllMocks());

  it('logs a tick skipped by noOverlap at debug, as a structured line, and writes nothing of its own', async () => {
    const lines: Line[] = [];
    const written: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
        written.push(String(chunk));
        return write(chunk, ...rest);
      }) as typeof stream.write);
    }
    let release: () => void = () => {};
    const running = new Promise<void>((resolve) => (release = resolve));
    // A run that outlasts the next tick: the tick after it is skipped.
    const task = cron.schedule('* * * * * *', () => running, { name: 'slow', noOverlap: true, logger: cronLogger(collectingLogger(lines), 'slow') });
    try {
      await vi.waitFor(() => expect(lines.some((l) => l.message.includes('overlap'))).toBe(true), { timeout: 5_000, interval: 100 });
    } finally {
      release();
      await task.destroy();
    }
    const overlap = lines.find((l) => l.message.includes('overlap'))!;
    expect(overlap).toMatchObject({ level: 'debug', fields: { task: 'slow' } });
    expect(written.filter((w) => w.includes('NODE-CRON'))).toEqual([]);
  });
});
