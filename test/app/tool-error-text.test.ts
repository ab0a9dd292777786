/**
 * A chat tool's error answer as the delivery log keeps it: Discord's and Teams' JSON, or the text,
 * always well formed: half a surrogate pair the tool sent (a JSON escape) is one U+FFFD, as every
 * store and face writes it alike, and the 300-character cut never splits a pair it sent whole.
 */
import { describe, expect, it } from 'vitest';
import { toolErrorText } from '../../src/app/senders/sealed-url.ts';

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('a chat tool’s error text', () => {
  it('reads half a surrogate pair in Discord’s and Teams’ JSON as one U+FFFD', () => {
    expect(toolErrorText(400, '{"message":"Invalid \\ud800 Form Body","code":50035}')).toBe('HTTP 400: Invalid \ufffd Form Body (50035)');
    expect(toolErrorText(400, '{"error":{"code":"Bad\\udc00Request","message":"Card \\udbff is invalid"}}')).toBe(
      'HTTP 400: Card \ufffd is invalid (Bad\ufffdRequest)',
    );
  });

  it('leaves out whole a character the 300-character cut would split, never half of it', () => {
    const emoji = '\u{1F525}';
    const message = `${'x'.repeat(299)}${emoji}`;
    for (const excerpt of [JSON.stringify({ message }), message]) {
      const text = toolErrorText(502, excerpt);
      expect(text).not.toMatch(loneSurrogate);
      expect(text).toBe(`HTTP 502: ${'x'.repeat(299)}`);
    }
  });
});
