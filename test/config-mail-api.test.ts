/** The settings of email through Postmark's HTTP API (the Workers form's mail), as config.ts parses them. */
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, ConfigError, parseConfig } from '../src/config.ts';
import { HOSTILE_ADDRESSES } from './fixtures/hostile-addresses.ts';

const TOKEN = 'b0a1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';
const FROM = 'statuswatch <alerts@status.example.org>';

function configError(source: Record<string, string>): string {
  try {
    parseConfig(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('mail API settings', () => {
  it('default to Postmark and its transactional stream, with the token unset', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({ MAIL_API_URL: 'https://api.postmarkapp.com', MAIL_API_STREAM: 'outbound' });
    expect(config.MAIL_API_TOKEN).toBeUndefined();
    // An empty value counts as unset, as for every setting.
    expect(parseConfig({ MAIL_API_TOKEN: '' }).MAIL_API_TOKEN).toBeUndefined();
  });

  it('read the token, a loopback URL without its trailing slash, and a stream', () => {
    const config = parseConfig({ MAIL_API_TOKEN: ` ${TOKEN} `, MAIL_FROM: FROM, MAIL_API_URL: 'http://127.0.0.1:4040/', MAIL_API_STREAM: 'status-alerts' });
    expect(config).toMatchObject({ MAIL_API_TOKEN: TOKEN, MAIL_API_URL: 'http://127.0.0.1:4040', MAIL_API_STREAM: 'status-alerts' });
    // Postmark's documented test token.
    expect(parseConfig({ MAIL_API_TOKEN: 'POSTMARK_API_TEST', MAIL_FROM: FROM }).MAIL_API_TOKEN).toBe('POSTMARK_API_TEST');
  });

  it('refuse SMTP_URL and MAIL_API_TOKEN together, naming both and never printing the token', () => {
    const message = configError({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_API_TOKEN: TOKEN, MAIL_FROM: FROM });
    expect(message).toBe('invalid configuration:\n  MAIL_API_TOKEN: set either SMTP_URL or MAIL_API_TOKEN, not both');
    expect(message).not.toContain(TOKEN);
  });

  it('refuse MAIL_API_TOKEN without MAIL_FROM: Postmark only sends from a confirmed sender', () => {
    expect(configError({ MAIL_API_TOKEN: TOKEN })).toMatch(/^invalid configuration:\n {2}MAIL_FROM: MAIL_API_TOKEN needs MAIL_FROM/);
  });

  it('refuse malformed values in one line each, without echoing the token', () => {
    const secret = 'abc def-secret';
    const message = configError({ MAIL_API_TOKEN: secret, MAIL_FROM: FROM, MAIL_API_URL: 'ftp://api.postmarkapp.com', MAIL_API_STREAM: 'Out bound' });
    const lines = message.split('\n').slice(1);
    expect(lines).toEqual([
      '  MAIL_API_TOKEN: MAIL_API_TOKEN must be a Postmark server token: printable characters, no spaces',
      '  MAIL_API_URL: MAIL_API_URL must be an http(s) URL',
      '  MAIL_API_STREAM: MAIL_API_STREAM must be a Postmark message stream ID such as "outbound" (letters, digits, - and _)',
    ]);
    expect(message).not.toContain('secret');
  });

  it('are not flags of the Node command, which sends mail over SMTP', () => {
    for (const key of ['MAIL_API_TOKEN', 'MAIL_API_URL', 'MAIL_API_STREAM']) expect(CONFIG_KEYS).not.toContain(key);
    expect(CONFIG_KEYS).toContain('SMTP_URL');
  });
});

describe('addresses in settings', () => {
  it('take ADMIN_EMAIL as one bare address and MAIL_FROM as one mailbox', () => {
    expect(parseConfig({ ADMIN_EMAIL: ' ops@example.com ', MAIL_FROM: FROM })).toMatchObject({ ADMIN_EMAIL: 'ops@example.com', MAIL_FROM: FROM });
  });

  it.each(HOSTILE_ADDRESSES)('refuse ADMIN_EMAIL %j, which names a recipient besides the admin', (value) => {
    expect(configError({ ADMIN_EMAIL: value })).toMatch(
      /^invalid configuration:\n {2}ADMIN_EMAIL: ADMIN_EMAIL must be one email address such as ops@example.com: it /,
    );
  });

  it('refuse a MAIL_FROM that is a list, a group or carries a line break', () => {
    for (const value of ['status@example.com, eve@evil.example', 'senders:status@example.com;', 'statuswatch <status@example.com>\nBcc: eve@evil.example']) {
      expect(configError({ MAIL_FROM: value }), value).toMatch(/^invalid configuration:\n {2}MAIL_FROM: MAIL_FROM must be one sender such as/);
    }
  });
});
