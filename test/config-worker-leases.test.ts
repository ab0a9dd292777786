/** How long a killed Worker invocation's poll lease and delivery claims last, as config.ts parses them. */
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, ConfigError, parseConfig } from '../src/config.ts';

function configError(source: Record<string, string>): string {
  try {
    parseConfig(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('lease settings of the Workers form', () => {
  it('default to two minutes for the poll lease and one for a delivery claim', () => {
    expect(parseConfig({})).toMatchObject({ POLL_LEASE_MS: 120_000, DELIVERY_CLAIM_MS: 60_000 });
    expect(parseConfig({ POLL_LEASE_MS: '', DELIVERY_CLAIM_MS: '' })).toMatchObject({ POLL_LEASE_MS: 120_000, DELIVERY_CLAIM_MS: 60_000 });
  });

  it('read whole milliseconds from a second to the 15 minutes a Worker invocation may run', () => {
    expect(parseConfig({ POLL_LEASE_MS: '1000', DELIVERY_CLAIM_MS: '900000' })).toMatchObject({ POLL_LEASE_MS: 1000, DELIVERY_CLAIM_MS: 900_000 });
  });

  it('refuse values that are not whole milliseconds in range, one line each', () => {
    const lines = configError({ POLL_LEASE_MS: '2 minutes', DELIVERY_CLAIM_MS: '999' }).split('\n').slice(1);
    expect(lines).toEqual(['  POLL_LEASE_MS: POLL_LEASE_MS must be a number', '  DELIVERY_CLAIM_MS: DELIVERY_CLAIM_MS must be at least 1000']);
    expect(configError({ POLL_LEASE_MS: '1500.5' })).toContain('POLL_LEASE_MS must be a whole number');
    expect(configError({ DELIVERY_CLAIM_MS: '900001' })).toContain('DELIVERY_CLAIM_MS must be at most 900000');
  });

  it("are not flags of the Node command, which frees a dead process's lease and claims at once", () => {
    for (const key of ['POLL_LEASE_MS', 'DELIVERY_CLAIM_MS']) expect(CONFIG_KEYS).not.toContain(key);
  });
});
