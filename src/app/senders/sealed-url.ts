/** The URL of a `teams` or `discord` subscription, opened from its seal: it authorizes posting, so only the seal is stored. */
import type { StoredSubscription } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { parseWellFormedJson, wellFormedPrefix } from '../../core/well-formed-text.ts';

export async function openSealedUrl(secrets: SecretBox, subscription: StoredSubscription): Promise<string | null> {
  return subscription.secretSealed ? secrets.open(subscription.secretSealed) : null;
}

/** A chat tool's error answer as its own words: Discord's `{"message","code"}`, Teams' `{"error":{"code","message"}}`, or the text itself. */
export function toolErrorText(status: number | null, excerpt: string): string {
  const head = status === null ? 'no answer' : `HTTP ${status}`;
  try {
    const body = parseWellFormedJson(excerpt) as { message?: unknown; code?: unknown; error?: { message?: unknown; code?: unknown } };
    const said = body.error ?? body;
    if (typeof said.message === 'string')
      return `${head}: ${wellFormedPrefix(said.message, 300)}${said.code !== undefined ? ` (${wellFormedPrefix(String(said.code), 50)})` : ''}`;
  } catch {
    // Not JSON: the text itself, below.
  }
  const text = wellFormedPrefix(excerpt.trim(), 300);
  return text === '' ? head : `${head}: ${text}`;
}
