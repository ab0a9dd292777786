/**
 * SECRET_KEY when it is set; otherwise a key made once and kept in a file beside the database
 * (mode 0600), so `npm start` works with no setup. The log says so: a key beside the database
 * protects secrets in backups and dumps of the database alone, not against theft of the folder.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { generateSecretKey } from '../core/secret-box.ts';
import type { Logger } from '../core/ports.ts';

export function resolveSecretKey(configured: string | undefined, databasePath: string, logger: Logger): string {
  if (configured) return configured;
  const file = join(dirname(resolve(databasePath === ':memory:' ? './data/x' : databasePath)), 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = generateSecretKey();
  writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  logger.warn('SECRET_KEY is unset: made one and saved it beside the database; set SECRET_KEY to keep it elsewhere', { file });
  return key;
}
