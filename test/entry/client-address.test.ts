/**
 * The client address the Node entry hands the app, end to end: the socket's peer, told apart by
 * connecting from two loopback addresses, and X-Forwarded-For only with TRUST_PROXY. The route
 * tests run the app without a socket (a fixed peer), so only this file covers the entry's wiring.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';

/** Nothing listens there: these tests never poll. */
const NO_VENDOR = 'http://127.0.0.1:9';
/** Free typos per address (core/guess-throttle.ts): the next wrong guess from it waits. */
const FREE_GUESSES = 5;

describe('client address on the Node entry', () => {
  let service: TestService;
  afterEach(() => service.close());

  /** A wrong admin token sent from the given loopback source address (Linux routes all of 127/8 to lo); resolves to the status. */
  function guessFrom(localAddress: string) {
    return (forwardedFor: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = { authorization: 'Bearer wrong', 'x-forwarded-for': forwardedFor };
        request(`${service.url}/api/subscriptions`, { localAddress, headers, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
          .on('error', reject)
          .end();
      });
  }

  it('counts wrong guesses per socket peer, whatever X-Forwarded-For says', async () => {
    service = await startTestService(NO_VENDOR);
    const fromTwo = guessFrom('127.0.0.2');
    for (let i = 0; i < FREE_GUESSES; i++) expect(await fromTwo(`198.51.100.${i}`)).toBe(401);
    expect(await fromTwo('198.51.100.99')).toBe(429);
    // Another peer has its own count.
    expect(await guessFrom('127.0.0.3')('198.51.100.99')).toBe(401);
  });

  it('with TRUST_PROXY, counts per the address the proxy appended', async () => {
    service = await startTestService(NO_VENDOR, { env: { TRUST_PROXY: 'true' } });
    const viaProxy = guessFrom('127.0.0.2');
    for (let i = 0; i <= FREE_GUESSES; i++) expect(await viaProxy(`203.0.113.9, 198.51.100.${i}`)).toBe(401);
  });
});
