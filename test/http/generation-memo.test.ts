import { describe, expect, it } from 'vitest';
import { generationMemo } from '../../src/app/generation-memo.ts';

function world() {
  const state = { generation: 1, nowMs: 1_000_000, builds: 0 };
  const memo = generationMemo({
    generation: async () => state.generation,
    clock: { now: () => state.nowMs },
    maxAgeMs: 60_000,
    build: async (nowMs) => `built ${++state.builds} at ${nowMs}`,
  });
  return { state, memo };
}

describe('generationMemo', () => {
  it('builds once per archive generation', async () => {
    const { state, memo } = world();
    expect(await memo()).toBe('built 1 at 1000000');
    state.nowMs += 59_999;
    expect(await memo()).toBe('built 1 at 1000000');
    state.generation = 2;
    expect(await memo()).toBe('built 2 at 1059999');
  });

  it('builds again when the value is too old, or the clock went back', async () => {
    const { state, memo } = world();
    await memo();
    state.nowMs += 60_000;
    expect(await memo()).toBe('built 2 at 1060000');
    state.nowMs -= 1;
    expect(await memo()).toBe('built 3 at 1059999');
  });

  it('lets requests that arrive during a build share it', async () => {
    const { state, memo } = world();
    const [a, b] = await Promise.all([memo(), memo()]);
    expect([a, b, state.builds]).toEqual(['built 1 at 1000000', 'built 1 at 1000000', 1]);
  });

  it('forgets a build that failed', async () => {
    let fail = true;
    const memo = generationMemo({
      generation: async () => 1,
      clock: { now: () => 0 },
      maxAgeMs: 60_000,
      build: async () => {
        if (fail) throw new Error('disk full');
        return 'ok';
      },
    });
    await expect(memo()).rejects.toThrow('disk full');
    fail = false;
    expect(await memo()).toBe('ok');
  });
});
