/**
 * The one rule for every email address an outside party hands us (sign-up, admin forms and API,
 * the directory, ADMIN_EMAIL, MAIL_FROM): exactly one bare address (RFC 5322 addr-spec), read by
 * a real RFC 5322 parser. Mail software reads a To value as an address *list*, so a value such as
 * `a@example.com, eve@evil.example`, `"Trusted" <eve@evil.example>` or a group `x:eve@evil.example;`
 * would otherwise put a stranger in RCPT TO.
 */
import parseRfc5322 from 'email-addresses';
import type { MailResult } from './ports/senders.ts';

/** RFC 5321: a path is at most 256 octets including its angle brackets. */
export const EMAIL_MAX_CHARS = 254;
/** A display name longer than this is no sender's name. */
const DISPLAY_NAME_MAX_CHARS = 200;

export type AddressCheck = { ok: true; address: string } | { ok: false; reason: string };

/**
 * `text` as one bare address, or why it is not one. Surrounding white space is dropped; anything
 * else the parser would read differently from the text as given is refused: a display name, a
 * comment, a quoted local part, a list, a group, a line break, obsolete syntax. A domain literal
 * (`a@[10.0.0.1]`) is refused too: it would let anyone aim our mail at an IP address of their choosing.
 * Only ASCII: an address with UTF-8 needs SMTPUTF8 from every relay on the way.
 */
export function singleAddress(text: string): AddressCheck {
  const value = text.trim();
  if (value === '') return { ok: false, reason: 'it is empty' };
  // Bounded before parsing: the parser's work grows with its input.
  if (value.length > EMAIL_MAX_CHARS) return { ok: false, reason: `it is longer than ${EMAIL_MAX_CHARS} characters` };
  const parsed = parseRfc5322({ input: value, startAt: 'address-list', strict: true, rfc6532: false });
  const found = parsed?.addresses ?? [];
  if (found.length !== 1) return { ok: false, reason: found.length > 1 ? 'it is a list of addresses, not one' : 'it is not an email address' };
  const only = found[0]!;
  if (only.type === 'group') return { ok: false, reason: 'it is a group of addresses, not one' };
  if (only.name !== null || only.address !== value) return { ok: false, reason: 'it is more than a bare address such as ops@example.com' };
  if (only.domain.startsWith('[')) return { ok: false, reason: 'its domain is an IP address, not a name' };
  return { ok: true, address: value };
}

/** A sender (MAIL_FROM): one mailbox, with or without a display name, whose address passes singleAddress. */
export type Mailbox = { name: string | null; address: string };

export function parseMailbox(text: string): { ok: true; mailbox: Mailbox } | { ok: false; reason: string } {
  const value = text.trim();
  if (value.length > EMAIL_MAX_CHARS + DISPLAY_NAME_MAX_CHARS) return { ok: false, reason: 'it is too long for one sender' };
  // A folded name would carry a line break into the From header.
  if ([...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return { ok: false, reason: 'it has a line break or another control character' };
  const bare = singleAddress(value);
  if (bare.ok) return { ok: true, mailbox: { name: null, address: bare.address } };
  const parsed = parseRfc5322({ input: value, startAt: 'address-list', strict: true, rfc6532: false });
  const found = parsed?.addresses ?? [];
  if (found.length !== 1 || found[0]!.type !== 'mailbox') return { ok: false, reason: 'it is not one mailbox such as "statuswatch <status@example.com>"' };
  const only = found[0]!;
  const address = singleAddress(only.address);
  if (!address.ok) return { ok: false, reason: `its address ${address.reason.replace(/^it /, '')}` };
  return { ok: true, mailbox: { name: only.name, address: address.address } };
}

/**
 * What every Mailer answers for a `to` that is not one bare address, before anything is sent: the
 * address refused for good, as a relay's 5xx to RCPT TO would be. Null when `to` is one address.
 */
export function recipientRefusal(to: string): (MailResult & { ok: false }) | null {
  const check = singleAddress(to);
  if (check.ok && check.address === to) return null;
  const why = check.ok ? 'it has white space around it' : check.reason;
  return { ok: false, kind: 'recipient_rejected', code: null, response: `not sent: the recipient is not one bare email address (${why})`, retryable: false };
}
