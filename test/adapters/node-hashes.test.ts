/** Node's own hashes give what Web Crypto gives, byte for byte: webhook ids and signatures must not depend on the runtime. */
import { describe, expect, it } from 'vitest';
import { nodeHashes } from '../../src/adapters/node-hashes.ts';
import { webCryptoHashes } from '../../src/core/web-crypto-hashes.ts';
import { webhookMessageId } from '../../src/core/fanout.ts';
import { decodeWebhookSecret, generateWebhookSecret, signWebhook } from '../../src/core/webhook-signing.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('nodeHashes', () => {
  it('hashes and signs as Web Crypto does', async () => {
    const key = decodeWebhookSecret(generateWebhookSecret());
    for (const text of ['', 'a|sub_1', `msg_x.1790000000.${'é'.repeat(300)}`]) {
      expect(new Uint8Array(await nodeHashes.sha256(bytes(text)))).toEqual(new Uint8Array(await webCryptoHashes.sha256(bytes(text))));
      expect(new Uint8Array(await nodeHashes.hmacSha256(key, bytes(text)))).toEqual(new Uint8Array(await webCryptoHashes.hmacSha256(key, bytes(text))));
    }
  });

  it('hashes a string as its UTF-8 bytes, on Node and on Web Crypto', async () => {
    const key = decodeWebhookSecret(generateWebhookSecret());
    const text = `msg_x.1790000000.${'é'.repeat(300)}`;
    for (const hashes of [nodeHashes, webCryptoHashes]) {
      expect(new Uint8Array(await hashes.sha256(text))).toEqual(new Uint8Array(await webCryptoHashes.sha256(bytes(text))));
      expect(new Uint8Array(await hashes.hmacSha256(key, text))).toEqual(new Uint8Array(await webCryptoHashes.hmacSha256(key, bytes(text))));
    }
  });

  it('gives the same webhook-id and signature as Web Crypto', async () => {
    const input = {
      id: 'msg_abc',
      timestampSeconds: 1_790_000_000,
      body: '{"type":"incident.created"}',
      secrets: [generateWebhookSecret(), generateWebhookSecret()],
    };
    expect(await signWebhook({ ...input, hashes: nodeHashes })).toBe(await signWebhook(input));
    expect(await webhookMessageId('inc_1|sub_1', nodeHashes)).toBe(await webhookMessageId('inc_1|sub_1'));
  });
});
