/**
 * The secret box from SECRET_KEY alone, with Web Crypto only: for runtimes with no file beside the
 * database to keep a key in (Workers, where the key is a secret: `wrangler secret put SECRET_KEY`).
 */
import { ConfigError, settingError } from '../config.ts';
import { createSecretBox, SecretBoxError, type SecretBox } from '../core/secret-box.ts';

/** A key that is missing or not one is a ConfigError naming the setting and the fix; the value is never shown. */
export async function secretBoxFromSetting(configured: string | undefined, howToSet: string): Promise<SecretBox> {
  if (!configured) {
    throw new ConfigError(`SECRET_KEY is unset: it encrypts webhook secrets at rest and has no key file to fall back on here. Fix: ${howToSet}`);
  }
  try {
    return await createSecretBox(configured);
  } catch (error) {
    if (!(error instanceof SecretBoxError) || error.kind !== 'invalid_key') throw error;
    const problem = `not a usable key (${configured.length} characters; expected 64 hex characters, 44 base64 characters, or a passphrase of 32 or more varied characters)`;
    throw settingError('SECRET_KEY', `<${configured.length} characters>`, problem, howToSet);
  }
}
