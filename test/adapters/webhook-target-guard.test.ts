import type { LookupAddress } from 'node:dns';
import { createServer, type LookupFunction } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TARGET_REFUSED, guardedConnector, guardedLookup } from '../../src/adapters/webhook-target-guard.ts';

type Answer = LookupAddress[] | Error;

/** A resolver that answers from a table, recording the options it was called with. */
function fakeLookup(table: Record<string, Answer>, calls: unknown[] = []): LookupFunction {
  return (hostname, options, callback) => {
    calls.push({ hostname, all: options.all });
    const answer = table[hostname] ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    queueMicrotask(() => {
      if (answer instanceof Error) callback(answer, '');
      else if (options.all) callback(null, answer);
      else callback(null, answer[0]!.address, answer[0]!.family);
    });
  };
}

function lookupOnce(
  lookup: LookupFunction,
  hostname: string,
  all: boolean,
): Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }> {
  return new Promise((resolve) => lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family })));
}

describe('guardedLookup', () => {
  const table: Record<string, Answer> = {
    'public.test': [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ],
    'loopback.test': [{ address: '127.0.0.1', family: 4 }],
    'mixed.test': [
      { address: '93.184.216.34', family: 4 },
      { address: '::ffff:10.0.0.1', family: 6 },
    ],
  };

  it('passes public answers through in the shape asked for, always asking for all addresses', async () => {
    const calls: unknown[] = [];
    const lookup = guardedLookup(false, fakeLookup(table, calls));
    expect(await lookupOnce(lookup, 'public.test', true)).toEqual({ error: null, address: table['public.test'], family: undefined });
    expect(await lookupOnce(lookup, 'public.test', false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(calls).toEqual([
      { hostname: 'public.test', all: true },
      { hostname: 'public.test', all: true },
    ]);
  });

  it('refuses when any address is forbidden, naming it', async () => {
    const lookup = guardedLookup(false, fakeLookup(table));
    for (const all of [true, false]) {
      const loop = await lookupOnce(lookup, 'loopback.test', all);
      expect(loop.error?.code).toBe(WEBHOOK_TARGET_REFUSED);
      expect(loop.error?.message).toBe('target refused: loopback.test resolves to 127.0.0.1, which is loopback (127.0.0.0/8)');
      const mixed = await lookupOnce(lookup, 'mixed.test', all);
      expect(mixed.error?.message).toMatch(/::ffff:10\.0\.0\.1, which is IPv4-mapped 10\.0\.0\.1: private/);
    }
  });

  it('lets private answers through when allowed, and passes resolver errors on', async () => {
    const lookup = guardedLookup(true, fakeLookup(table));
    expect(await lookupOnce(lookup, 'loopback.test', false)).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect((await lookupOnce(lookup, 'nowhere.test', true)).error?.code).toBe('ENOTFOUND');
  });

  it('uses the system resolver by default', async () => {
    const answer = await lookupOnce(guardedLookup(false), 'localhost', true);
    expect(answer.error?.code).toBe(WEBHOOK_TARGET_REFUSED);
  });
});

describe('guardedConnector', () => {
  it('refuses a bracketed IPv6 literal, as undici hands those over', async () => {
    const server = createServer((socket) => socket.destroy());
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const connect = guardedConnector({ allowPrivate: false, connectTimeoutMs: 1000 });
      for (const hostname of ['[::1]', '[::ffff:127.0.0.1]']) {
        const error = await new Promise<Error | null>((resolve) =>
          connect({ hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) }, (err, socket) => {
            socket?.destroy();
            resolve(err);
          }),
        );
        expect(error?.message, hostname).toMatch(/^target refused: address .* loopback/);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('refuses a forbidden IP literal without dialling it (net.connect would skip the lookup)', async () => {
    const server = createServer((socket) => socket.destroy());
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const connect = guardedConnector({ allowPrivate: false, connectTimeoutMs: 1000 });
      const error = await new Promise<Error | null>((resolve) =>
        connect({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol: 'http:', port: String(port) }, (err, _socket) => resolve(err)),
      );
      expect(error?.message).toBe('target refused: address 127.0.0.1 is loopback (127.0.0.0/8)');

      const allowed = guardedConnector({ allowPrivate: true, connectTimeoutMs: 1000 });
      const socket = await new Promise<{ destroy(): void } | null>((resolve) =>
        allowed({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol: 'http:', port: String(port) }, (_err, s) => resolve(s)),
      );
      socket?.destroy();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });
});
