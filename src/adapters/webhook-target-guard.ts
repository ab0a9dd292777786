/**
 * Keeps webhook deliveries from Node away from our own network (SSRF): checks every address at
 * connection time, after DNS, so a name that re-resolves to a private address (DNS rebinding)
 * cannot slip through. The URL itself is judged by core/webhook-target.ts first.
 */
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { WEBHOOK_TARGET_REFUSED, isForbiddenAddress } from '../core/webhook-target.ts';

// The URL rules live in the core, shared with the Workers sender and the subscription service;
// re-exported here for the Node entry, which checks subscription URLs with them.
export { WEBHOOK_TARGET_REFUSED, checkWebhookUrl, isForbiddenAddress, type UrlCheck } from '../core/webhook-target.ts';

type LookupCallback = Parameters<LookupFunction>[2];

function refusal(hostname: string, address: string, reason: string): NodeJS.ErrnoException {
  const target = hostname === address ? `address ${address} is` : `${hostname} resolves to ${address}, which is`;
  const error: NodeJS.ErrnoException = new Error(`target refused: ${target} ${reason}`);
  error.code = WEBHOOK_TARGET_REFUSED;
  return error;
}

/**
 * A `lookup` for net.connect (and undici's `connect` options) that resolves with the real
 * resolver and fails with code EWEBHOOKTARGET if ANY address is forbidden: it runs right before
 * the socket connects, so what was checked is what is connected to. `lookup` is injectable only
 * so tests can simulate a rebinding resolver; production uses dns.lookup.
 */
export function guardedLookup(allowPrivate: boolean, lookup: LookupFunction = dns.lookup as LookupFunction): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    // Always ask for every address, so none escapes the check, then answer in the shape asked for.
    lookup(hostname, { ...options, all: true }, (error, result) => {
      if (error) return callback(error, '');
      const addresses: LookupAddress[] = typeof result === 'string' ? [{ address: result, family: isIP(result) }] : result;
      if (addresses.length === 0) {
        const empty: NodeJS.ErrnoException = new Error(`webhook target ${hostname}: no address`);
        empty.code = 'ENOTFOUND';
        return callback(empty, '');
      }
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const reason = isForbiddenAddress(address);
          if (reason) return callback(refusal(hostname, address, reason), '');
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export type GuardedConnectorOptions = {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  lookup?: LookupFunction;
};

/**
 * An undici connector that refuses forbidden IP literals (which net.connect would dial without
 * a lookup) and otherwise connects through `guardedLookup`. A second line behind checkWebhookUrl.
 */
export function guardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connect = buildConnector({
    lookup: guardedLookup(options.allowPrivate, options.lookup),
    timeout: options.connectTimeoutMs,
  });
  return (connectOptions, callback) => {
    // IPv6 literals come bracketed, as in the URL ("[::1]"); isIP wants them bare.
    const host = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!options.allowPrivate && isIP(host) !== 0) {
      const reason = isForbiddenAddress(host);
      if (reason) {
        callback(refusal(host, host, reason), null);
        return;
      }
    }
    connect(connectOptions, callback);
  };
}
