import { describe, expect, it } from 'vitest';
import { parseMailbox, singleAddress } from '../../src/core/email-address.ts';
import { HOSTILE_ADDRESSES } from '../fixtures/hostile-addresses.ts';

describe('singleAddress', () => {
  it('takes one bare address, without the white space around it', () => {
    expect(singleAddress('ops@example.com')).toEqual({ ok: true, address: 'ops@example.com' });
    expect(singleAddress('  first.last+alerts@mail.example.co.uk \n')).toEqual({ ok: true, address: 'first.last+alerts@mail.example.co.uk' });
    expect(singleAddress('status@localhost')).toEqual({ ok: true, address: 'status@localhost' });
  });

  it.each(HOSTILE_ADDRESSES)('refuses %j: it names a recipient besides the one', (value) => {
    expect(singleAddress(value).ok).toBe(false);
  });

  it('says why a value is refused', () => {
    expect(singleAddress('a@example.com, eve@evil.example')).toEqual({ ok: false, reason: 'it is a list of addresses, not one' });
    expect(singleAddress('undisclosed:eve@evil.example;')).toEqual({ ok: false, reason: 'it is a group of addresses, not one' });
    expect(singleAddress('"Trusted" <eve@evil.example>')).toEqual({ ok: false, reason: 'it is more than a bare address such as ops@example.com' });
    expect(singleAddress('ops')).toEqual({ ok: false, reason: 'it is not an email address' });
    expect(singleAddress('')).toEqual({ ok: false, reason: 'it is empty' });
  });

  it('refuses what a mailer would read differently from the text: comments, quoted local parts, domain literals, obsolete forms', () => {
    for (const value of ['a(comment)@example.com', '"eve@evil.example, a"@example.com', 'a@[127.0.0.1]', 'a..b@example.com', 'a @example.com', 'ü@example.com'])
      expect(singleAddress(value), value).toMatchObject({ ok: false });
  });

  it('bounds the length at 254 characters, the longest path SMTP carries', () => {
    const local = 'a'.repeat(64);
    const domainOf = (length: number) => `${'b'.repeat(length - 4)}.com`;
    const longest = `${local}@${domainOf(254 - 65)}`;
    expect(longest).toHaveLength(254);
    expect(singleAddress(longest).ok).toBe(true);
    expect(singleAddress(`${local}@${domainOf(255 - 65)}`)).toEqual({ ok: false, reason: 'it is longer than 254 characters' });
    expect(singleAddress(`${'x'.repeat(330)}@example.com`).ok).toBe(false);
  });
});

describe('parseMailbox (MAIL_FROM)', () => {
  it('takes one mailbox, with or without a display name', () => {
    expect(parseMailbox('statuswatch <status@example.com>')).toEqual({ ok: true, mailbox: { name: 'statuswatch', address: 'status@example.com' } });
    expect(parseMailbox('"Status, Inc." <status@example.com>')).toEqual({ ok: true, mailbox: { name: 'Status, Inc.', address: 'status@example.com' } });
    expect(parseMailbox('status@example.com')).toEqual({ ok: true, mailbox: { name: null, address: 'status@example.com' } });
  });

  it('refuses a list, a group, a line break and a domain literal', () => {
    for (const value of [
      'a <status@example.com>, eve@evil.example',
      'senders:status@example.com;',
      'statuswatch <status@example.com>\r\nBcc: eve@evil.example',
      'statuswatch <status@[10.0.0.1]>',
      'statuswatch',
    ])
      expect(parseMailbox(value), value).toMatchObject({ ok: false });
  });
});
