import { describe, expect, it } from 'vitest';
import { SecretBoxError, createSecretBox, generateSecretKey } from '../../src/core/secret-box.ts';

const HEX_KEY = '6f1c2b9a0d8e47f3a5b6c7d8e9f00112233445566778899aabbccddeeff01234';
const BASE64_KEY = Buffer.from(HEX_KEY, 'hex').toString('base64');
const PASSPHRASE = 'correct horse battery staple, and then some more';

async function expectRefusal(promise: Promise<unknown>, kind: SecretBoxError['kind'], label = ''): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, label).toBeInstanceOf(SecretBoxError);
  expect((error as SecretBoxError).kind, label).toBe(kind);
}

function parts(sealed: string): { keyId: string; iv: Buffer; body: Buffer } {
  const [, keyId = '', iv = '', body = ''] = sealed.split('.');
  return { keyId, iv: Buffer.from(iv, 'base64url'), body: Buffer.from(body, 'base64url') };
}

function join(keyId: string, iv: Buffer, body: Buffer): string {
  return `v1.${keyId}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

describe('secret box', () => {
  it('round-trips ASCII, unicode, the empty string and 100 KB', async () => {
    const box = await createSecretBox(HEX_KEY);
    const big = 'abcdefghij'.repeat(10_240);
    for (const plaintext of ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'Grüße, 世界 👋🏽', '', big]) {
      const sealed = await box.seal(plaintext);
      expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,}$/);
      expect(await box.open(sealed)).toBe(plaintext);
    }
  });

  it('seals the same plaintext differently every time', async () => {
    const box = await createSecretBox(HEX_KEY);
    const [a, b] = [await box.seal('same'), await box.seal('same')];
    expect(a).not.toBe(b);
    expect(parts(a).iv.equals(parts(b).iv)).toBe(false);
  });

  it('reads the same key from hex and base64, and a stable key id', async () => {
    const hex = await createSecretBox(HEX_KEY);
    const upper = await createSecretBox(HEX_KEY.toUpperCase());
    const base64 = await createSecretBox(BASE64_KEY);
    const base64url = await createSecretBox(Buffer.from(HEX_KEY, 'hex').toString('base64url') + '=');
    expect(BASE64_KEY).toHaveLength(44);
    const sealed = await hex.seal('shared');
    for (const box of [upper, base64, base64url]) {
      expect(box.keyId).toBe(hex.keyId);
      expect(await box.open(sealed)).toBe('shared');
    }
    expect(parts(sealed).keyId).toBe(hex.keyId);
    expect(hex.keyId).toMatch(/^[0-9a-f]{8}$/);
  });

  it('derives a key from a long passphrase, the same one every time', async () => {
    const a = await createSecretBox(PASSPHRASE);
    const b = await createSecretBox(PASSPHRASE);
    expect(await b.open(await a.seal('p'))).toBe('p');
    expect((await createSecretBox(PASSPHRASE + '!')).keyId).not.toBe(a.keyId);
    // 32 characters counted as code points, not UTF-16 units.
    await expect(createSecretBox('🔑abcdefghijklmnopqrstuvwxyz01234')).resolves.toBeDefined();
  });

  it('refuses short, placeholder and whitespace-padded keys, naming SECRET_KEY', async () => {
    for (const bad of [
      '',
      'short',
      'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p',
      'x'.repeat(64),
      '0'.repeat(64),
      'changeme'.repeat(4),
      `${HEX_KEY}\n`,
      ` ${PASSPHRASE}`,
    ]) {
      const error = await createSecretBox(bad).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(bad)).toBeInstanceOf(SecretBoxError);
      expect((error as SecretBoxError).kind).toBe('invalid_key');
      expect((error as Error).message).toMatch(/^SECRET_KEY: /);
      if (bad.length > 8) expect((error as Error).message).not.toContain(bad.trim());
    }
    await expect(createSecretBox('short')).rejects.toThrow(/at least 32 characters, got 5 characters/);
    // Anything else of 32 characters or more is a passphrase, even a truncated hex key.
    await expect(createSecretBox(HEX_KEY.slice(0, 62))).resolves.toBeDefined();
  });

  it('tells another SECRET_KEY apart from tampering', async () => {
    const box = await createSecretBox(HEX_KEY);
    const other = await createSecretBox(generateSecretKey());
    const sealed = await box.seal('webhook secret');
    await expectRefusal(other.open(sealed), 'other_key');
    await expect(other.open(sealed)).rejects.toThrow(`key id ${box.keyId}`);
    // Same key id but the wrong key (a collision, or a forged id) still fails authentication.
    const { iv, body } = parts(sealed);
    await expectRefusal(other.open(join(other.keyId, iv, body)), 'tampered');
  });

  it('refuses every single-byte change of the IV, the ciphertext and the tag', async () => {
    const box = await createSecretBox(HEX_KEY);
    const sealed = await box.seal('a secret of some length');
    const { keyId, iv, body } = parts(sealed);
    for (let i = 0; i < iv.length; i++) {
      const changed = Buffer.from(iv);
      changed[i]! ^= 0x01;
      await expectRefusal(box.open(join(keyId, changed, body)), 'tampered', `iv byte ${i}`);
    }
    for (let i = 0; i < body.length; i++) {
      for (const flip of [0x01, 0x80]) {
        const changed = Buffer.from(body);
        changed[i]! ^= flip;
        await expectRefusal(box.open(join(keyId, iv, changed)), 'tampered', `body byte ${i}`);
      }
    }
    // Truncating or extending the tag is tampering too.
    await expectRefusal(box.open(join(keyId, iv, body.subarray(0, -1))), 'tampered');
    await expectRefusal(box.open(join(keyId, iv, Buffer.concat([body, Buffer.from([0])]))), 'tampered');
    await expectRefusal(box.open(`${sealed}AA`), 'tampered');
  });

  it('refuses every single-character change of the sealed text', async () => {
    const box = await createSecretBox(HEX_KEY);
    const sealed = await box.seal('x');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    for (let i = 0; i < sealed.length; i++) {
      for (const replacement of alphabet) {
        if (replacement === sealed[i]) continue;
        const changed = sealed.slice(0, i) + replacement + sealed.slice(i + 1);
        await expect(box.open(changed), changed).rejects.toBeInstanceOf(SecretBoxError);
      }
    }
  });

  it('refuses unknown versions and malformed text', async () => {
    const box = await createSecretBox(HEX_KEY);
    const sealed = await box.seal('x');
    const { keyId, iv, body } = parts(sealed);
    await expectRefusal(box.open(sealed.replace(/^v1/, 'v2')), 'unknown_version');
    await expectRefusal(box.open(sealed.replace(/^v1/, 'v0')), 'unknown_version');
    const malformed = [
      '',
      'x',
      'v1',
      'v1.',
      sealed.slice(2),
      `V1${sealed.slice(2)}`,
      `${sealed}.`,
      `${sealed}=`,
      ` ${sealed}`,
      `${sealed}\n`,
      sealed.replace(keyId, keyId.toUpperCase()),
      sealed.replace(keyId, keyId.slice(1)),
      `v1.${keyId}.${iv.toString('base64')}.${body.toString('base64')}`.replace(/[A-Za-z0-9_-]=*$/, '+'),
      join(keyId, iv.subarray(1), body),
      join(keyId, Buffer.concat([iv, Buffer.from([0])]), body),
      join(keyId, iv, body.subarray(0, 15)),
      join(keyId, iv, Buffer.alloc(0)),
      `v1.${keyId}.${iv.toString('base64url')}`,
      'not sealed at all',
    ];
    for (const bad of malformed) await expectRefusal(box.open(bad), 'malformed', JSON.stringify(bad));
    await expectRefusal(box.open(42 as unknown as string), 'malformed');
  });

  it('refuses to seal text TextEncoder would alter', async () => {
    const box = await createSecretBox(HEX_KEY);
    await expectRefusal(box.seal('lone \uD800 surrogate'), 'malformed');
    expect(await box.open(await box.seal('pair \uD83D\uDC4B'))).toBe('pair 👋');
  });

  it('generates keys it accepts', async () => {
    const key = generateSecretKey();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    await expect(createSecretBox(key)).resolves.toBeDefined();
  });
});
