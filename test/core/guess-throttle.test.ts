import { describe, expect, it } from 'vitest';
import { ALL_ADDRESSES_GUESSES, decideGuess, guessLogLength, guessWaitMs, PER_ADDRESS_GUESSES, type GuessLimit } from '../../src/core/guess-throttle.ts';

const t0 = Date.UTC(2026, 10, 23, 6);
const perAddress: GuessLimit[] = [{ key: 'a', rule: PER_ADDRESS_GUESSES }];

/** An attacker who guesses wrong as soon as allowed, `count` times: the waits they were told. */
function hammer(count: number, limits = perAddress, start = t0) {
  let log: number[] | undefined;
  let now = start;
  const waitsMs: number[] = [];
  for (let i = 0; i < count; ) {
    const decision = decideGuess([log], limits, true, now);
    if (decision.allowed) {
      log = decision.writes[0]!.failuresMs;
      i++;
    } else {
      waitsMs.push(decision.retryAfterMs);
      now += decision.retryAfterMs;
    }
  }
  return { log: log!, now, waitsMs };
}

describe('guess throttle', () => {
  it('lets five typos through, then waits 1, 2, 4, 8 s and never more than 10 s', () => {
    const { waitsMs } = hammer(12);
    expect(waitsMs).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it('accepts the right token once the wait is over, however long the attack went on, and refuses it before', () => {
    const { log, now } = hammer(500);
    const wait = guessWaitMs(log, PER_ADDRESS_GUESSES, now);
    expect(wait).toBe(10_000);
    expect(decideGuess([log], perAddress, false, now + wait - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
    expect(decideGuess([log], perAddress, false, now + wait)).toEqual({ allowed: true, writes: [] });
  });

  it('keeps a bounded log, and forgets it 15 minutes after the last wrong guess', () => {
    const { log, now } = hammer(500);
    expect(log.length).toBe(guessLogLength(PER_ADDRESS_GUESSES));
    expect(guessWaitMs(log, PER_ADDRESS_GUESSES, log.at(-1)! + 15 * 60_000)).toBe(0);
    expect(decideGuess([log], perAddress, true, now + 15 * 60_000 + 10_000)).toMatchObject({
      allowed: true,
      writes: [{ failuresMs: [now + 15 * 60_000 + 10_000] }],
    });
  });

  it('records nothing for refused guesses, and waits for the longest of several logs', () => {
    const global: GuessLimit = { key: 'all', rule: ALL_ADDRESSES_GUESSES };
    const full = Array.from({ length: 10 }, (_, i) => t0 + i);
    expect(decideGuess([undefined, full], [perAddress[0]!, global], true, t0 + 10)).toEqual({ allowed: false, retryAfterMs: 999 });
    // Ten a second across all addresses: the eleventh waits, the next second has room again.
    expect(decideGuess([undefined, full], [perAddress[0]!, global], false, t0 + 1009)).toMatchObject({ allowed: true });
  });

  it('ignores junk in stored logs', () => {
    expect(guessWaitMs([Number.NaN, t0 + 5 * 60 * 60_000], PER_ADDRESS_GUESSES, t0)).toBe(0);
  });
});
