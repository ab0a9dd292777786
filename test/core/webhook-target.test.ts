import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isForbiddenAddress } from '../../src/core/webhook-target.ts';

describe('checkWebhookUrl', () => {
  const strict = { allowPrivate: false };
  const lax = { allowPrivate: true };

  it('accepts https to a public name or address', () => {
    for (const url of ['https://hooks.example.com/in', 'https://hooks.example.com:8443/in?x=1', 'https://8.8.8.8/', 'https://[2606:4700::1111]/']) {
      const check = checkWebhookUrl(url, strict);
      expect(check.ok, url).toBe(true);
    }
  });

  it('accepts plain http only when private receivers are allowed', () => {
    expect(checkWebhookUrl('http://hooks.example.com/', strict)).toEqual({
      ok: false,
      reason: 'scheme http: is not allowed: expected https:',
      privateTarget: true,
    });
    expect(checkWebhookUrl('http://hooks.example.com/', lax).ok).toBe(true);
    for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'gopher://127.0.0.1/', 'ws://hooks.example.com/']) {
      expect(checkWebhookUrl(url, lax).ok, url).toBe(false);
    }
  });

  it('refuses invalid URLs and credentials, even when private receivers are allowed', () => {
    expect(checkWebhookUrl('not a url', lax)).toEqual({ ok: false, reason: 'not a valid absolute URL' });
    expect(checkWebhookUrl('https://999.1.1.1/', lax).ok).toBe(false);
    expect(checkWebhookUrl('https://user:pass@hooks.example.com/', lax)).toEqual({ ok: false, reason: 'credentials in the URL are not allowed' });
    expect(checkWebhookUrl('https://8.8.8.8@127.0.0.1/', strict).ok).toBe(false);
  });

  it('sees through every IPv4 notation the URL parser knows', () => {
    for (const host of [
      '127.0.0.1',
      '127.1',
      '2130706433',
      '0x7f000001',
      '0x7f.1',
      '0x7f.0.0.1',
      '017700000001',
      '0177.0.0.1',
      '127.000.000.001',
      '127.0.0.1.',
      '127.0.0.1%2e',
      '0X7F.0X0.0X0.0X1',
    ]) {
      const check = checkWebhookUrl(`https://${host}/`, strict);
      expect(check, host).toEqual({ ok: false, reason: 'address 127.0.0.1 is loopback (127.0.0.0/8)', privateTarget: true });
    }
  });

  it('refuses private IPv6 literals, including the ones that embed IPv4', () => {
    for (const host of [
      '[::1]',
      '[::]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:7f00:1]',
      '[::127.0.0.1]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::]',
      '[fe80::1]',
      '[fc00::1]',
      '[fd12:3456::1]',
      '[2001::1]',
    ]) {
      const check = checkWebhookUrl(`https://${host}/`, strict);
      expect(check.ok, host).toBe(false);
      expect(check.ok ? '' : check.reason, host).toMatch(/^address \S+ is /);
    }
  });

  it('refuses localhost names without asking DNS', () => {
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost']) {
      expect(checkWebhookUrl(`https://${host}/`, strict).ok, host).toBe(false);
    }
    expect(checkWebhookUrl('https://localhost.example.com/', strict).ok).toBe(true);
  });

  it('lets everything with a good scheme through when private receivers are allowed', () => {
    for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'https://[::1]/', 'http://10.0.0.1/']) {
      expect(checkWebhookUrl(url, lax).ok, url).toBe(true);
    }
  });
});

describe('isForbiddenAddress', () => {
  it('refuses special-purpose IPv4 ranges, edges included', () => {
    const forbidden = [
      '0.0.0.0',
      '0.255.255.255',
      '10.0.0.0',
      '10.255.255.255',
      '100.64.0.0',
      '100.127.255.255',
      '127.0.0.1',
      '127.255.255.255',
      '169.254.169.254',
      '172.16.0.0',
      '172.31.255.255',
      '192.0.0.8',
      '192.0.2.1',
      '192.88.99.1',
      '192.168.0.1',
      '198.18.0.1',
      '198.19.255.255',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '239.255.255.255',
      '240.0.0.1',
      '255.255.255.255',
    ];
    for (const ip of forbidden) expect(isForbiddenAddress(ip), ip).not.toBeNull();
    expect(isForbiddenAddress('100.64.0.1')).toBe('carrier-grade NAT (100.64.0.0/10)');
    expect(isForbiddenAddress('169.254.169.254')).toBe('link-local, cloud metadata (169.254.0.0/16)');
  });

  it('allows public IPv4 just outside those ranges', () => {
    const allowed = [
      '1.1.1.1',
      '8.8.8.8',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.1.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
    ];
    for (const ip of allowed) expect(isForbiddenAddress(ip), ip).toBeNull();
  });

  it('refuses special IPv6 ranges and judges embedded IPv4 as IPv4', () => {
    const forbidden: Record<string, RegExp> = {
      '::': /unspecified/,
      '::1': /loopback/,
      '::ffff:127.0.0.1': /IPv4-mapped 127\.0\.0\.1: loopback/,
      '::ffff:a9fe:a9fe': /IPv4-mapped 169\.254\.169\.254/,
      '::ffff:0:10.0.0.1': /IPv4-translated 10\.0\.0\.1/,
      '::127.0.0.1': /IPv4-compatible 127\.0\.0\.1/,
      '::a00:1': /IPv4-compatible 10\.0\.0\.1/,
      '64:ff9b::7f00:1': /NAT64 127\.0\.0\.1/,
      '64:ff9b::192.168.1.1': /NAT64 192\.168\.1\.1/,
      '64:ff9b:1::808:808': /local-use NAT64/,
      '2002:7f00:1::': /6to4 127\.0\.0\.1/,
      '2002:c0a8:101::1': /6to4 192\.168\.1\.1/,
      '2001::1': /Teredo/,
      '2001:0:4136:e378:8000:63bf:3fff:fdd2': /Teredo/,
      '2001:db8::1': /documentation/,
      '100::1': /discard/,
      'fe80::1': /link-local/,
      'febf:ffff::1': /link-local/,
      'fec0::1': /site-local/,
      'fc00::1': /unique local/,
      'fdff:ffff::1': /unique local/,
      'ff02::1': /multicast/,
      '1::1': /not global unicast/,
      '4000::1': /not global unicast/,
    };
    for (const [ip, reason] of Object.entries(forbidden)) expect(isForbiddenAddress(ip), ip).toMatch(reason);
  });

  it('allows global IPv6 unicast and public IPv4 behind the embedding prefixes', () => {
    for (const ip of [
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '3fff:ffff::1',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:4860::8888',
    ]) {
      expect(isForbiddenAddress(ip), ip).toBeNull();
    }
  });

  it('refuses what is not a plain address', () => {
    for (const text of ['', 'localhost', '127.1', '0x7f.0.0.1', '0177.0.0.1', '127.0.0.01', 'fe80::1%eth0', '[::1]', '1.2.3.4.5', ':::1']) {
      expect(isForbiddenAddress(text), text).toBe('not an IP address');
    }
  });
});

describe('checkWebhookUrl: names that are private whatever DNS says', () => {
  const strict = { allowPrivate: false };
  const lax = { allowPrivate: true };

  it('refuses .local, .internal, .home.arpa and single-label names, in any case and with a trailing dot', () => {
    const refused: Record<string, RegExp> = {
      'printer.local': /RFC 6762/,
      'PRINTER.LOCAL.': /RFC 6762/,
      'metadata.google.internal': /\.internal/,
      internal: /\.internal/,
      'nas.home.arpa': /RFC 8375/,
      'home.arpa': /RFC 8375/,
      intranet: /single-label/,
      'intranet.': /single-label/,
      'api.localhost': /loopback name/,
    };
    for (const [host, reason] of Object.entries(refused)) {
      const check = checkWebhookUrl(`https://${host}/hook`, strict);
      expect(check.ok, host).toBe(false);
      expect(check.ok ? '' : check.reason, host).toMatch(reason);
    }
  });

  it('accepts public names that merely contain those words, and lifts the rule with allowPrivate', () => {
    for (const host of ['local.example.com', 'internal.example.com', 'hooks.example.local.example.com', 'home.arpa.example.com', 'example.com.']) {
      expect(checkWebhookUrl(`https://${host}/`, strict).ok, host).toBe(true);
    }
    for (const host of ['printer.local', 'intranet', 'nas.home.arpa']) expect(checkWebhookUrl(`http://${host}/`, lax).ok, host).toBe(true);
  });

  it('refuses every IP literal under ipLiterals "refuse", naming the address as the parser read it', () => {
    const rules = { allowPrivate: false, ipLiterals: 'refuse' } as const;
    expect(checkWebhookUrl('https://8.8.8.8/', rules)).toEqual({ ok: false, reason: 'address 8.8.8.8 is an IP literal: name the receiver by a DNS name' });
    expect(checkWebhookUrl('https://0x8080808/', rules)).toEqual({ ok: false, reason: 'address 8.8.8.8 is an IP literal: name the receiver by a DNS name' });
    expect(checkWebhookUrl('https://[2606:4700::1111]/', rules)).toEqual({
      ok: false,
      reason: 'address 2606:4700::1111 is an IP literal: name the receiver by a DNS name',
    });
    // A private literal keeps the more telling reason.
    expect(checkWebhookUrl('https://[::ffff:10.0.0.1]/', rules)).toEqual({
      ok: false,
      reason: 'address ::ffff:a00:1 is IPv4-mapped 10.0.0.1: private (10.0.0.0/8)',
      privateTarget: true,
    });
    expect(checkWebhookUrl('https://hooks.example.com/', rules).ok).toBe(true);
    expect(checkWebhookUrl('http://10.0.0.1/', { allowPrivate: true, ipLiterals: 'refuse' }).ok).toBe(true);
  });
});
