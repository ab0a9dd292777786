/** Strict IP address parsing, shared by the SSRF guard and the rate limiter. */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isLoopbackHostname, parseIPv4, parseIPv6 } from '../../src/core/ip-address.ts';

describe('the address parsers', () => {
  it('parse IPv4 strictly', () => {
    expect(parseIPv4('192.168.1.2')).toBe(0xc0a80102);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    for (const text of ['1.2.3', '1.2.3.256', '01.2.3.4', '1.2.3.4 ', '-1.2.3.4', '1..2.3', '']) expect(parseIPv4(text), text).toBeNull();
  });

  it('expand :: and read a trailing IPv4', () => {
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('1:2:3:4:5:6:7::')).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIPv6('::2:3:4:5:6:7:8')).toEqual([0, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('fe80::a:B:c')).toEqual([0xfe80, 0, 0, 0, 0, 0xa, 0xb, 0xc]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('1:2:3:4:5:6:1.2.3.4')).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
  });

  it('agree with node:net isIP on what is valid IPv6', () => {
    const samples = [
      '::',
      '::1',
      '1::',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7::',
      '::2:3:4:5:6:7:8',
      '1:2:3:4:5:6:1.2.3.4',
      '::1.2.3.4',
      '1::1.2.3.4',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '1::2::3',
      ':1::',
      '1:::2',
      '12345::',
      'g::',
      '1:2:3:4:5:6:7:1.2.3.4',
      '::1.2.3',
      '::1.2.3.04',
      '1.2.3.4::',
      '::ffff:1.2.3.4:1',
      '[::1]',
      '',
      ':',
      '1:2:3:4:5:6:7:8::',
      '::1:2:3:4:5:6:7:8',
    ];
    for (const text of samples) expect(parseIPv6(text) !== null, text).toBe(isIP(text) === 6);
    // Except zone ids, which isIP accepts: a scoped address is link-local by definition.
    expect(isIP('fe80::1%eth0')).toBe(6);
    expect(parseIPv6('fe80::1%eth0')).toBeNull();
  });
});

describe('isLoopbackHostname', () => {
  it('knows the names of this machine as a URL writes them, and nothing that merely resolves to it', () => {
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.255.0.9', '[::1]', '[0:0:0:0:0:0:0:1]']) {
      expect(isLoopbackHostname(host), host).toBe(true);
    }
    for (const host of ['evil.example.com', 'localhost.evil.example', '10.0.0.1', '128.0.0.1', '::1', '[::2]', '[::]', '0.0.0.0', '']) {
      expect(isLoopbackHostname(host), host).toBe(false);
    }
  });
});
