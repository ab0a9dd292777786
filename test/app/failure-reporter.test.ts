/** The log lines of a failure episode, driven by passed time: what an operator reads during an outage. */
import { describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFailureReporter } from '../../src/app/failure-reporter.ts';

type LogLine = { level: string; msg: string; [field: string]: unknown };

function setUp(backsOff: boolean) {
  let now = 1_700_000_000_000;
  const logs: LogLine[] = [];
  const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(JSON.parse(line) as LogLine) });
  const reporter = createFailureReporter({ activity: 'delivery', logger, clock: { now: () => now }, backsOff });
  return {
    reporter,
    logs,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const diskFull = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('failure reporter', () => {
  it('says eleven minutes of a full disk in four lines: paused, two reminders, resumed', () => {
    const { reporter, logs, advance } = setUp(true);
    for (let elapsed = 0; elapsed < 11 * 60_000; ) {
      const waitMs = reporter.failed(diskFull);
      advance(waitMs);
      elapsed += waitMs;
    }
    reporter.succeeded();
    expect(logs.map((l) => [l.level, l.msg])).toEqual([
      ['error', 'delivery paused: disk full'],
      ['warn', 'delivery still paused: disk full'],
      ['warn', 'delivery still paused: disk full'],
      ['info', 'delivery resumed'],
    ]);
    expect(logs[0]).toMatchObject({ error: 'database or disk is full', failures: 1, retryInMs: 1_000 });
    expect(logs[1]).toMatchObject({ retryInMs: 30_000 });
    expect(logs[3]).toMatchObject({ after: 'disk full' });
    expect(logs[3]!.pausedForMs).toBeGreaterThanOrEqual(11 * 60_000);
    expect(JSON.stringify(logs)).not.toMatch(/\\n\s+at /);
  });

  it('keeps the stack of an unexpected error (a bug), on the first line only', () => {
    const { reporter, logs, advance } = setUp(true);
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    for (let i = 0; i < 5; i++) advance(reporter.failed(bug));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: 'error', msg: 'delivery paused: unexpected error' });
    expect(String(logs[0]!.stack)).toMatch(/TypeError: Cannot read properties/);
  });

  it('promises no retry time when a schedule decides it, and is silent when nothing failed', () => {
    const { reporter, logs } = setUp(false);
    reporter.succeeded();
    expect(logs).toEqual([]);
    reporter.failed(diskFull);
    expect(logs[0]).not.toHaveProperty('retryInMs');
  });
});
