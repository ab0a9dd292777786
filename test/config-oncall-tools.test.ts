/**
 * Where PagerDuty and Opsgenie subscriptions send, as the settings name it: the tools' own APIs by
 * default (the Events API v2 endpoint; Opsgenie's host of the subscription's region), a loopback
 * URL when tests and the demo point them at a simulator. The defaults are the contract's.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.ts';
import { OPSGENIE_API_URL_DEFAULTS } from '../src/core/opsgenie-message.ts';

describe('on-call tool settings', () => {
  it('default to PagerDuty’s Events API v2 and, for Opsgenie, each region’s own host', () => {
    const config = parseConfig({});
    // https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
    expect(config.PAGERDUTY_EVENTS_URL).toBe('https://events.pagerduty.com/v2/enqueue');
    expect(config.OPSGENIE_API_URL).toBeUndefined();
    // https://docs.opsgenie.com/docs/alert-api: "api.eu.opsgenie.com" for accounts in the EU.
    expect(OPSGENIE_API_URL_DEFAULTS).toEqual({ us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' });
  });

  it('take a loopback URL, without its trailing slash, and refuse what is not an http(s) URL', () => {
    const config = parseConfig({ PAGERDUTY_EVENTS_URL: 'http://127.0.0.1:4100/v2/enqueue', OPSGENIE_API_URL: 'http://127.0.0.1:4100/' });
    expect(config).toMatchObject({ PAGERDUTY_EVENTS_URL: 'http://127.0.0.1:4100/v2/enqueue', OPSGENIE_API_URL: 'http://127.0.0.1:4100' });
    expect(() => parseConfig({ OPSGENIE_API_URL: 'ftp://api.opsgenie.com' })).toThrow(ConfigError);
  });
});
