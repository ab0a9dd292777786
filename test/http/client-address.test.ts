import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { clientAddressFrom } from '../../src/http/client-address.ts';

async function addressOf(trustProxy: boolean, headers: Record<string, string>): Promise<string> {
  const app = new Hono().get('/', (c) => c.text(clientAddressFrom(() => '10.0.0.2', trustProxy)(c)));
  return (await app.request('/', { headers })).text();
}

describe('clientAddressFrom', () => {
  it('uses the socket address unless told to trust the proxy', async () => {
    expect(await addressOf(false, { 'x-forwarded-for': '203.0.113.9' })).toBe('10.0.0.2');
  });

  it('behind a trusted proxy, takes the entry the proxy appended, not what the client sent', async () => {
    expect(await addressOf(true, { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' })).toBe('203.0.113.9');
    expect(await addressOf(true, {})).toBe('10.0.0.2');
  });
});
