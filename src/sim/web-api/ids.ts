/** Identifiers and secrets the simulated Web API hands out, shaped like the vendor's (Web Crypto only). */

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomFrom(alphabet: string, length: number): string {
  // 256 is not a multiple of 62 or 36: the slight bias is irrelevant for a simulator's tokens.
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let text = '';
  for (const byte of bytes) text += alphabet[byte % alphabet.length];
  return text;
}

const digits = (length: number): string => Array.from(crypto.getRandomValues(new Uint8Array(length)), (b) => String(b % 10)).join('');

/** A vendor-style object id: a one-letter kind (T team, C channel, U user, B bot, A app) and 10 characters. */
export const newObjectId = (kind: 'T' | 'C' | 'G' | 'U' | 'B' | 'A' | 'E'): string => `${kind}${randomFrom(UPPER_DIGITS, 10)}`;

/** A long-lived token, `xoxb-` for a bot and `xoxp-` for a user, as installs without rotation give. */
export const newLongLivedToken = (type: 'bot' | 'user'): string =>
  `${type === 'bot' ? 'xoxb' : 'xoxp'}-${digits(12)}-${digits(13)}-${randomFrom(ALPHANUMERIC, 24)}`;

/** An expiring access token: the spec says it begins with `xoxe.`. */
export const newExpiringToken = (type: 'bot' | 'user'): string => `xoxe.${type === 'bot' ? 'xoxb' : 'xoxp'}-1-${randomFrom(ALPHANUMERIC, 48)}`;

export const newRefreshToken = (): string => `xoxe-1-${randomFrom(ALPHANUMERIC, 64)}`;

export const newAuthCode = (): string => `${digits(12)}.${digits(13)}.${randomFrom('0123456789abcdef', 64)}`;

export const newClientSecret = (): string => randomFrom('0123456789abcdef', 32);

export const newClientId = (): string => `${digits(12)}.${digits(13)}`;
