import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { decodeWebhookSecret, generateWebhookSecret, signWebhook, verifyWebhookSignature, webhookHeaders } from '../../src/core/webhook-signing.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ type: 'incident.created', data: { id: '1579', title: 'Messages délayed ✉️' } });

describe('webhook secrets', () => {
  it('are whsec_ and 32 random bytes of base64, different every time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(a).byteLength).toBe(32);
    expect(a).not.toBe(b);
  });

  it('refuses malformed secrets with a clear error', async () => {
    const input = { id: 'msg_1', timestampSeconds: nowSeconds(), body };
    const short = `whsec_${btoa('x'.repeat(8))}`;
    for (const [secret, message] of [
      ['no-prefix', /prefix whsec_/],
      ['whsec_', /padded base64/],
      ['whsec_not base64!', /padded base64/],
      ['whsec_AAAA=', /padded base64/],
      [short, /24 to 64 bytes, got 8/],
    ] as const) {
      await expect(signWebhook({ ...input, secrets: [secret] }), secret).rejects.toThrow(message);
    }
    await expect(signWebhook({ ...input, secrets: [] })).rejects.toThrow(/at least one secret/);
  });

  it('refuses ids and timestamps that cannot travel in a header', async () => {
    const secrets = [generateWebhookSecret()];
    await expect(signWebhook({ id: 'a b', timestampSeconds: 1, body, secrets })).rejects.toThrow(/webhook id/);
    await expect(signWebhook({ id: '', timestampSeconds: 1, body, secrets })).rejects.toThrow(/webhook id/);
    await expect(signWebhook({ id: 'x', timestampSeconds: 1.5, body, secrets })).rejects.toThrow(/timestamp/);
    await expect(signWebhook({ id: `msg_${'x'.repeat(253)}`, timestampSeconds: 1, body, secrets })).rejects.toThrow(/webhook id/);
    await expect(signWebhook({ id: 'msg_é', timestampSeconds: 1, body, secrets })).rejects.toThrow(/webhook id/);
    expect(await signWebhook({ id: `msg_${'x'.repeat(252)}`, timestampSeconds: 1, body, secrets })).toMatch(/^v1,/);
  });
});

describe('signed webhooks, as a Standard Webhooks receiver sees them', () => {
  it('verify with the standardwebhooks package', async () => {
    const secret = generateWebhookSecret();
    const headers = await webhookHeaders({ id: 'msg_1579.r2.created', timestampSeconds: nowSeconds(), body, secrets: [secret] });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('match what the package itself signs, byte for byte', async () => {
    const secret = generateWebhookSecret();
    const timestampSeconds = 1_700_000_000;
    const ours = await signWebhook({ id: 'msg_x', timestampSeconds, body, secrets: [secret] });
    expect(ours).toBe(new Webhook(secret).sign('msg_x', new Date(timestampSeconds * 1000), body));
  });

  it('are refused when the body, the id, the secret or the timestamp is wrong', async () => {
    const secret = generateWebhookSecret();
    const headers = await webhookHeaders({ id: 'msg_1', timestampSeconds: nowSeconds(), body, secrets: [secret] });
    const receiver = new Webhook(secret);
    expect(() => receiver.verify(body.replace('1579', '1580'), headers)).toThrow(/No matching signature/);
    expect(() => receiver.verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow(/No matching signature/);
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);

    const old = await webhookHeaders({ id: 'msg_1', timestampSeconds: nowSeconds() - 10 * 60, body, secrets: [secret] });
    expect(() => receiver.verify(body, old)).toThrow(/too old/);
    const future = await webhookHeaders({ id: 'msg_1', timestampSeconds: nowSeconds() + 10 * 60, body, secrets: [secret] });
    expect(() => receiver.verify(body, future)).toThrow(/too new/);
  });

  it('carry one signature per secret during a rotation, and either secret verifies', async () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = await webhookHeaders({ id: 'msg_1', timestampSeconds: nowSeconds(), body, secrets: [oldSecret, newSecret] });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();

    const twice = await signWebhook({ id: 'msg_1', timestampSeconds: 1, body, secrets: [oldSecret, oldSecret] });
    expect(twice.split(' ')).toHaveLength(1);
  });

  it('are the same when signed with keys decoded once as with the secrets themselves', async () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const input = { id: 'msg_1', timestampSeconds: nowSeconds(), body };
    const keys = [decodeWebhookSecret(oldSecret), decodeWebhookSecret(newSecret)];
    const headers = await webhookHeaders({ ...input, keys });
    expect(headers).toEqual(await webhookHeaders({ ...input, secrets: [oldSecret, newSecret] }));
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(JSON.parse(body));
    await expect(signWebhook({ ...input, keys: [] })).rejects.toThrow(/at least one secret/);
  });
});

describe('verifyWebhookSignature', () => {
  it('agrees with the standardwebhooks package', async () => {
    const secret = generateWebhookSecret();
    const now = nowSeconds();
    const signature = new Webhook(secret).sign('msg_1', new Date(now * 1000), body);
    const input = { id: 'msg_1', timestamp: String(now), signature: `v2,ignored ${signature}`, body, secret, nowSeconds: now };
    expect(await verifyWebhookSignature(input)).toBe(true);
    expect(await verifyWebhookSignature({ ...input, body: `${body} ` })).toBe(false);
    expect(await verifyWebhookSignature({ ...input, secret: generateWebhookSecret() })).toBe(false);
    expect(await verifyWebhookSignature({ ...input, nowSeconds: now + 301 })).toBe(false);
    expect(await verifyWebhookSignature({ ...input, signature: 'v1,not-base64' })).toBe(false);
    expect(await verifyWebhookSignature({ ...input, timestamp: '12e3' })).toBe(false);
  });
});
