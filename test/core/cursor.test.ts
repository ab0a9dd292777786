import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../src/core/cursor.ts';

describe('cursor codec', () => {
  it('round-trips a payload', async () => {
    const codec = await createCursorCodec('secret-1');
    const cursor = await codec.encode({ k: 'incidents', c: 1700000000000, i: '1579' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(await codec.decode(cursor)).toEqual({ k: 'incidents', c: 1700000000000, i: '1579' });
  });

  it('refuses gibberish, tampering, padding and another key’s cursors', async () => {
    const codec = await createCursorCodec('secret-1');
    const other = await createCursorCodec('secret-2');
    const cursor = await codec.encode({ k: 'events', s: 10 });
    const [body, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ k: 'events', s: 0 })).toString('base64url');
    for (const bad of [
      '',
      'abc',
      'not a cursor',
      `${forged}.${mac}`,
      `${body}.${mac.slice(0, -1)}A`,
      `${body}=.${mac}`,
      await other.encode({ k: 'events', s: 10 }),
    ]) {
      expect(await codec.decode(bad), bad).toBeNull();
    }
  });
});
