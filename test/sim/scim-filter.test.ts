/** The v1.1 filter over real HTTP: every operator, grouping and precedence, and each malformed-filter code. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { control, createUser, scim, startScim } from './scim-helpers.ts';

let sim: RunningSimulatedScim;

/** userNames matching `filter`, sorted. */
async function names(filter: string, version: 'v1' | 'v2' = 'v1'): Promise<string[]> {
  const reply = await scim(sim, version, `/Users?count=100&filter=${encodeURIComponent(filter)}`);
  if (reply.status !== 200) throw new Error(`filter ${filter} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body.Resources.map((u: { userName: string }) => u.userName).sort();
}

async function code(filter: string): Promise<string> {
  const reply = await scim(sim, 'v1', `/Users?filter=${encodeURIComponent(filter)}`);
  expect(reply.status).toBe(400);
  return reply.body.Errors.description;
}

beforeEach(async () => {
  sim = await startScim();
  await createUser(sim, 'alice', 'v1', { emails: [{ value: 'alice@acme.test', primary: true }, { value: 'al@home.test' }] });
  await createUser(sim, 'bob', 'v1', { emails: [{ value: 'bob@acme.test' }] });
  await createUser(sim, 'carol', 'v1', { emails: [{ value: 'carol@other.test' }] });
  await control(sim, 'POST', '/users', { userName: 'dave', email: 'dave@acme.test', guest: 'multi' });
  await control(sim, 'POST', '/users', { userName: 'erin', email: 'erin@other.test', guest: 'single' });
});

describe('filter operators', () => {
  it('eq matches exactly, without regard to case', async () => {
    expect(await names('userName eq "bob"')).toEqual(['bob']);
    expect(await names('userName eq "BOB"')).toEqual(['bob']);
    expect(await names('email eq "al@home.test"')).toEqual(['alice']);
  });

  it('co contains, sw starts with', async () => {
    expect(await names('email co "acme"')).toEqual(['alice', 'bob', 'dave']);
    expect(await names('userName sw "ca"')).toEqual(['carol']);
  });

  it('pr is present: a set flag, a non-empty name', async () => {
    expect(await names('restricted pr')).toEqual(['dave']);
    expect(await names('ultra_restricted pr')).toEqual(['erin']);
    expect(await names('username pr')).toHaveLength(5);
  });

  it('gt, ge, lt, le compare in order', async () => {
    expect(await names('userName gt "carol"')).toEqual(['dave', 'erin']);
    expect(await names('userName ge "carol"')).toEqual(['carol', 'dave', 'erin']);
    expect(await names('userName lt "bob"')).toEqual(['alice']);
    expect(await names('userName le "bob"')).toEqual(['alice', 'bob']);
  });

  it('restricted and ultra_restricted compare with eq true or false', async () => {
    expect(await names('restricted eq true')).toEqual(['dave']);
    expect(await names('ultra_restricted eq false')).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  it('and, or; and binds tighter than or; parentheses group', async () => {
    expect(await names('email co "acme" and userName sw "b"')).toEqual(['bob']);
    expect(await names('userName eq "alice" or userName eq "carol"')).toEqual(['alice', 'carol']);
    // alice or (bob and restricted): bob is not a guest, so only alice.
    expect(await names('userName eq "alice" or userName eq "bob" and restricted eq true')).toEqual(['alice']);
    expect(await names('(userName eq "alice" or userName eq "bob") and email co "acme"')).toEqual(['alice', 'bob']);
    expect(await names('(userName eq "alice" or userName eq "dave") and restricted eq true')).toEqual(['dave']);
    expect(await names('((userName eq "carol"))')).toEqual(['carol']);
  });

  it('reads attribute names and operators without regard to case, and values as JSON strings', async () => {
    expect(await names('USERNAME EQ "bob"')).toEqual(['bob']);
    expect(await names('UserName Sw "a" OR Email Co "other"')).toEqual(['alice', 'carol', 'erin']);
    expect(await names('userName eq "b\\u006Fb"')).toEqual(['bob']);
  });
});

describe('malformed filters', () => {
  it('an empty filter is no_filters', async () => {
    expect(await code('')).toBe('no_filters');
  });

  it('parts not separated by exactly one space are incomplete_filter', async () => {
    expect(await code('userName  eq "bob"')).toBe('incomplete_filter');
    expect(await code(' userName eq "bob"')).toBe('incomplete_filter');
    expect(await code('userName eq "bob" ')).toBe('incomplete_filter');
    expect(await code('userName\teq "bob"')).toBe('incomplete_filter');
    expect(await code('userName eq"bob"')).toBe('incomplete_filter');
    expect(await code('userName eq "bob"and email pr')).toBe('incomplete_filter');
  });

  it('a missing value, operator or operand is incomplete_filter', async () => {
    expect(await code('userName eq')).toBe('incomplete_filter');
    expect(await code('userName')).toBe('incomplete_filter');
    expect(await code('userName eq "bob" and')).toBe('incomplete_filter');
    expect(await code('userName eq "bob')).toBe('incomplete_filter');
  });

  it('a malformed group is invalid_filter_group', async () => {
    expect(await code('(userName eq "bob"')).toBe('invalid_filter_group');
    expect(await code('userName eq "bob")')).toBe('invalid_filter_group');
    expect(await code('()')).toBe('invalid_filter_group');
  });

  it('an unknown attribute or operator, a bad literal or leftover words are invalid_query', async () => {
    expect(await code('displayName eq "bob"')).toBe('invalid_query');
    expect(await code('userName ne "bob"')).toBe('invalid_query');
    expect(await code('userName eq bob')).toBe('invalid_query');
    expect(await code('userName eq "bob" email pr')).toBe('invalid_query');
    expect(await code('not userName pr')).toBe('invalid_query');
  });

  it('an operator that cannot apply to the attribute is query_building_failed', async () => {
    expect(await code('restricted co "x"')).toBe('query_building_failed');
    expect(await code('userName eq true')).toBe('query_building_failed');
  });

  it('is v1.1 only: v2.0 refuses a filter rather than answer everyone', async () => {
    const reply = await scim(sim, 'v2', `/Users?filter=${encodeURIComponent('userName eq "bob"')}`);
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toBe('invalid_query');
  });
});
