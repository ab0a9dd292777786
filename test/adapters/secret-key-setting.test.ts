import { describe, expect, it } from 'vitest';
import { secretBoxFromSetting } from '../../src/adapters/secret-key-setting.ts';
import { ConfigError } from '../../src/config.ts';

const HOW = 'run `npx wrangler secret put SECRET_KEY`';

describe('the secret box from SECRET_KEY alone (Workers: no key file)', () => {
  it('refuses a missing key with the setting and the fix, instead of making one that would be lost', async () => {
    await expect(secretBoxFromSetting(undefined, HOW)).rejects.toThrow(ConfigError);
    await expect(secretBoxFromSetting('', HOW)).rejects.toThrow(/SECRET_KEY is unset.*Fix: run `npx wrangler secret put SECRET_KEY`/);
  });

  it('refuses a key that is not one, showing its length and never its value', async () => {
    const error = await secretBoxFromSetting('hunter2-hunter2', HOW).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('15 characters');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('opens what it sealed under the same key, and not under another', async () => {
    const key = 'a3'.repeat(8) + '0123456789abcdef'.repeat(3);
    const box = await secretBoxFromSetting(key, HOW);
    const sealed = await box.seal('whsec_test');
    expect(await (await secretBoxFromSetting(key, HOW)).open(sealed)).toBe('whsec_test');
    const other = await secretBoxFromSetting('b4'.repeat(8) + 'fedcba9876543210'.repeat(3), HOW);
    await expect(other.open(sealed)).rejects.toThrow(/another SECRET_KEY/);
  });
});
