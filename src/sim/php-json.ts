/** JSON encoding byte-compatible with PHP's json_encode defaults, which the vendor's feed uses. */

/**
 * Compact JSON with `/` written as `\/` and every non-ASCII UTF-16 unit as `\uXXXX`, so astral
 * characters come out as surrogate pairs, exactly like PHP. Clients that compare raw bytes or grep
 * bodies see what they would see from the real feed.
 */
export function encodePhpJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
