/**
 * SECRET_KEY when it is set; otherwise a key made once and kept in a file beside the database
 * (mode 0600), so `npm start` works with no setup. The log says so: a key beside the database
 * protects secrets in backups and dumps of the database alone, not against theft of the folder.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, settingError } from '../config.ts';
import { createSecretBox, generateSecretKey, SecretBoxError, type SecretBox } from '../core/secret-box.ts';
import type { Logger } from '../core/ports.ts';

export function resolveSecretKey(configured: string | undefined, databasePath: string, logger: Logger): string {
  if (configured) return configured;
  const file = secretKeyFile(databasePath);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = generateSecretKey();
  writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  logger.warn('SECRET_KEY is unset: made one and saved it beside the database; set SECRET_KEY to keep it elsewhere', { file });
  return key;
}

/** The box of SECRET_KEY (or the key file); a key that is not one stops startup with a one-line fix. */
export async function openSecretBox(configured: string | undefined, databasePath: string, logger: Logger): Promise<SecretBox> {
  const key = resolveSecretKey(configured, databasePath, logger);
  try {
    return await createSecretBox(key);
  } catch (error) {
    if (!(error instanceof SecretBoxError) || error.kind !== 'invalid_key') throw error;
    // The value is a secret: its length is shown, never the value.
    const problem = `not a usable key (${key.length} characters; expected 64 hex characters, 44 base64 characters, or a passphrase of 32 or more varied characters)`;
    if (configured)
      throw settingError(
        'SECRET_KEY',
        `<${key.length} characters>`,
        problem,
        'set it to the output of `openssl rand -hex 32`, or unset it to keep a key file beside the database',
      );
    throw new ConfigError(
      `SECRET_KEY is unset and its key file ${JSON.stringify(secretKeyFile(databasePath))} holds ${problem}. Fix: restore the file from a backup, or set SECRET_KEY to the key your webhook secrets were sealed with`,
    );
  }
}

/**
 * For commands that never seal or open a secret (`poll`): no key file is made for them. A call
 * is a bug, and says so.
 */
export const NO_SECRET_BOX: SecretBox = {
  keyId: 'none',
  seal: () => Promise.reject(new Error('this command keeps no secrets: it was started without SECRET_KEY')),
  open: () => Promise.reject(new Error('this command keeps no secrets: it was started without SECRET_KEY')),
};

function secretKeyFile(databasePath: string): string {
  return join(dirname(resolve(databasePath === ':memory:' ? './data/x' : databasePath)), 'secret.key');
}
