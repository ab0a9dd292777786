/** The log of refusals anyone can cause: a line at once, then one count a minute, whatever the rate. */
import { describe, expect, it } from 'vitest';
import type { LogFields } from '../../src/core/ports.ts';
import { createRefusalLog, REFUSAL_LOG_WINDOW_MS } from '../../src/http/refusal-log.ts';

function collectingLogger() {
  const lines: { message: string; fields: LogFields | undefined }[] = [];
  const write = (message: string, fields?: LogFields) => lines.push({ message, fields });
  return { lines, logger: { debug: write, info: write, warn: write, error: write } };
}

describe('createRefusalLog', () => {
  it('logs the first refusal of a minute, counts the rest, and says the count with the next minute', () => {
    const { lines, logger } = collectingLogger();
    let now = 1_000_000;
    const log = createRefusalLog({ logger, clock: { now: () => now } }, 'mcp request refused');

    log.refused('invalid_token', '203.0.113.1');
    expect(lines).toEqual([{ message: 'mcp request refused', fields: expect.objectContaining({ reason_code: 'invalid_token', address: '203.0.113.1' }) }]);
    for (let i = 0; i < 10_000; i++) log.refused(i % 2 ? 'invalid_token' : 'throttled', `198.51.100.${i % 250}`);
    expect(lines).toHaveLength(1);

    now += REFUSAL_LOG_WINDOW_MS;
    log.refused('invalid_token', '192.0.2.1');
    expect(lines).toHaveLength(3);
    expect(lines[1]!.fields).toMatchObject({ count: 10_000, by_reason: { invalid_token: 5000, throttled: 5000 } });
    // A sample of where it came from, never a list as long as the flood.
    expect(lines[1]!.fields!.addresses_sampled).toHaveLength(5);
    expect(lines[2]!.fields).toMatchObject({ reason_code: 'invalid_token', address: '192.0.2.1' });

    // A quiet minute owes no count.
    now += 5 * REFUSAL_LOG_WINDOW_MS;
    log.refused('invalid_token', '192.0.2.1');
    expect(lines).toHaveLength(4);
  });
});
