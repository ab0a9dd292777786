/**
 * Field types the app manifest schema is written in (lengths, counts, URLs, patterns, keyed maps),
 * each with a message that says what was expected and what came.
 */
import { z } from 'zod';
import { parseIPv4, parseIPv6 } from '../ip-address.ts';

/** Characters as a reader counts them: code points, so an emoji is one character, not two UTF-16 units. */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A short, printable picture of a value for messages: a 10 kB string must not fill the terminal. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return printable(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

type TextRules = { maxChars?: number; minChars?: number };

/** A string of at most `maxChars` (and at least `minChars`) characters. */
export function text(limits: TextRules = {}) {
  return z.string().superRefine((value, ctx) => {
    const problem = lengthProblem(value, limits);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

function lengthProblem(value: string, limits: TextRules): string | undefined {
  const count = charCount(value);
  if (limits.maxChars !== undefined && count > limits.maxChars) return `at most ${limits.maxChars} characters, got ${count}`;
  if (limits.minChars !== undefined && count < limits.minChars)
    return limits.minChars === 1 ? 'must not be empty' : `at least ${limits.minChars} characters, got ${count}`;
  return undefined;
}

/**
 * A string that matches `pattern`; `expected` names the rule in words. One problem is reported,
 * the length first. `unenforced`: the vendor's own sample apps break the pattern, so breaking it
 * is a warning, not an error (the length stays an error).
 */
export function matching(pattern: RegExp, expected: string, limits: TextRules = {}, options: { unenforced?: boolean } = {}) {
  return z.string().superRefine((value, ctx) => {
    const tooLong = lengthProblem(value, limits);
    if (tooLong) return ctx.addIssue({ code: 'custom', message: tooLong });
    if (pattern.test(value)) return;
    const problem = `expected ${expected}, got ${shown(value)}`;
    if (options.unenforced) addWarning(ctx, `${problem}: ${NOT_ENFORCED}`);
    else ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** Why a rule of the spec is a warning: apps made from the vendor's own samples break it. */
export const NOT_ENFORCED = "documented, not enforced by the vendor's own apps";

/**
 * A template placeholder left in a value: `{{URL}}`, `<BASE_URL>`, `$HOST` or `${HOST}`. Sample
 * manifests ship with them for the user to fill in; the vendor takes the text as it is.
 */
const PLACEHOLDER = /\{\{[^{}]*\}\}|<[^<>\s]+>|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*/;

export function placeholderIn(value: string): string | undefined {
  return PLACEHOLDER.exec(value)?.[0];
}

/**
 * An address: the length is checked, then a placeholder in it is a warning of its own (a URL
 * that still holds `{{URL}}` names no real host, whatever its shape), else `isValid` decides.
 */
function address(limits: TextRules, isValid: (value: string) => boolean, expected: string) {
  return z.string().superRefine((value, ctx) => {
    const tooLong = lengthProblem(value, limits);
    if (tooLong) return ctx.addIssue({ code: 'custom', message: tooLong });
    const placeholder = placeholderIn(value);
    if (placeholder !== undefined) {
      return addWarning(ctx, `holds the template placeholder ${shown(placeholder)}: put the real address in before creating the app`);
    }
    if (!isValid(value)) ctx.addIssue({ code: 'custom', message: `expected ${expected}, got ${shown(value)}` });
  });
}

/** An absolute https URL (the spec's "https URL"), not merely a string that starts with https://. */
export function httpsUrl(limits: TextRules = {}) {
  return address(limits, (value) => isUrl(value, ['https:']), 'an https URL');
}

/** An address the spec gives a pattern (`^https?://`) rather than "https URL". */
export function urlMatching(pattern: RegExp, expected: string, limits: TextRules = {}) {
  return address(limits, (value) => pattern.test(value), expected);
}

/** An address the spec gives no shape: any text, but a placeholder in it is still worth a warning. */
export function anyAddress(limits: TextRules = {}) {
  return address(limits, () => true, 'an address');
}

/** Reports a problem as a warning: the manifest is still usable, exit status 0. */
export function addWarning(ctx: z.RefinementCtx, message: string, path?: PropertyKey[]): void {
  ctx.addIssue({ code: 'custom', message, params: { severity: 'warning' }, ...(path ? { path } : {}) });
}

function isUrl(value: string, protocols: string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A list of at most `maxItems`. */
export function list<T extends z.ZodType>(item: T, maxItems?: number) {
  const array = z.array(item);
  return maxItems === undefined
    ? array
    : array.max(maxItems, { error: (issue) => `at most ${maxItems} items, got ${Array.isArray(issue.input) ? issue.input.length : 'more'}` });
}

/**
 * A map from names to `value`: at most `maxEntries`, each name checked by `key` (map keys are the
 * callback ids of functions, the names of workflows, datastores, types and MCP servers).
 */
export function keyedMap<T extends z.ZodType>(value: T, options: { maxEntries?: number; key?: z.ZodType<string> } = {}) {
  return z.record(options.key ?? z.string(), value).superRefine(
    (map, ctx) => {
      if (options.maxEntries === undefined || !isPlainObject(map)) return;
      const count = Object.keys(map).length;
      if (count > options.maxEntries) ctx.addIssue({ code: 'custom', message: `at most ${options.maxEntries} entries, got ${count}` });
    },
    // The count is a rule of its own: reported even when some entry is broken too.
    { when: () => true },
  );
}

/**
 * A list or a map of `item` (the spec's "map/array of"): checked as whichever it is, so a
 * broken entry is reported at its own path rather than as "matches neither".
 */
export function listOrMap<T extends z.ZodType>(item: T) {
  return z.unknown().superRefine((value, ctx) => {
    if (Array.isArray(value)) addIssuesFrom(list(item), value, ctx, []);
    else if (isPlainObject(value)) addIssuesFrom(keyedMap(item), value, ctx, []);
    else ctx.addIssue({ code: 'custom', message: `expected a list or a map, got ${shown(value)}` });
  });
}

/** An IP address or a range in CIDR form (10.0.0.0/8, 2001:db8::/32). */
export const ipAddressRange = z.string().superRefine((value, ctx) => {
  const [address = '', prefix, ...rest] = value.split('/');
  const bits = parseIPv4(address) !== null ? 32 : parseIPv6(address) !== null ? 128 : 0;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
  if (bits === 0 || !prefixOk || rest.length > 0) ctx.addIssue({ code: 'custom', message: `expected an IP address or a CIDR range, got ${shown(value)}` });
});

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One broken rule: where (`features.slash_commands[0].command`), what, and how bad. An error
 * is a rule the vendor enforces: the manifest would be refused. A warning is worth a look but
 * does not stop an app being made: an unknown field, a placeholder, a rule of the spec that the
 * vendor's own sample apps break.
 */
export type ManifestViolation = { path: string; message: string; severity: ManifestSeverity };
export type ManifestSeverity = 'error' | 'warning';

/**
 * `['features', 'slash_commands', 0, 'command']` as `features.slash_commands[0].command`. A key
 * that is not a plain name is quoted (`functions["a.b"]`), so a path read back is unambiguous.
 */
export function manifestPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z0-9_-]+$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out === '' ? '(root)' : out;
}

/**
 * Text safe to print on a terminal: control characters (C0, DEL, C1, which JSON.stringify leaves
 * as they are past U+001F), line separators and bidirectional overrides become \u escapes, so a
 * key or value in a hostile manifest cannot move the cursor, clear the screen or fake a line.
 */
export function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Messages for the issues a field's own rules do not word: missing, wrong type, unknown value. */
export const manifestMessages: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'required' : `expected ${article(issue.expected)}, got ${shown(issue.input)}`;
    case 'invalid_value':
      return `expected ${oneOf(issue.values.map((v) => JSON.stringify(v)))}, got ${shown(issue.input)}`;
    case 'invalid_union':
      return issue.input === undefined ? 'required' : `not one of the accepted shapes, got ${shown(issue.input)}`;
    default:
      return undefined;
  }
};

function oneOf(values: string[]): string {
  return values.length <= 2 ? values.join(' or ') : `one of ${values.join(', ')}`;
}

function article(expected: string): string {
  if (expected === 'array') return 'a list';
  if (expected === 'record') return 'an object';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** Zod's issues as violations. */
export function toViolations(issues: readonly z.core.$ZodIssue[]): ManifestViolation[] {
  return flatIssues(issues).map((issue) => ({ path: manifestPath(issue.path), message: issue.message, severity: issue.severity }));
}

/**
 * Checks `value` against `schema` from inside another schema's refinement, its issues placed
 * below `path`: how rules that depend on another part of the manifest (its version) are applied.
 */
export function addIssuesFrom(schema: z.ZodType, value: unknown, ctx: z.RefinementCtx, path: readonly PropertyKey[]): void {
  const result = schema.safeParse(value, { error: manifestMessages });
  if (result.success) return;
  for (const issue of flatIssues(result.error.issues)) {
    if (issue.severity === 'warning') addWarning(ctx, issue.message, [...path, ...issue.path]);
    else ctx.addIssue({ code: 'custom', message: issue.message, path: [...path, ...issue.path] });
  }
}

type FlatIssue = { path: PropertyKey[]; message: string; severity: ManifestSeverity };

function severityOf(issue: z.core.$ZodIssue): ManifestSeverity {
  return issue.code === 'custom' && issue.params?.severity === 'warning' ? 'warning' : 'error';
}

/**
 * One issue per path: an unknown key is reported at its own path, a bad map key at the key.
 * An unknown field is a warning: the spec lists the fields it describes, it does not forbid
 * others, and the vendor adds fields over time (a typo such as `slash_command` still shows).
 */
function flatIssues(issues: readonly z.core.$ZodIssue[]): FlatIssue[] {
  const flat: FlatIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) flat.push({ path: [...issue.path, key], message: UNKNOWN_FIELD, severity: 'warning' });
    } else if (issue.code === 'invalid_key') {
      for (const inner of issue.issues) flat.push({ path: issue.path, message: `bad name: ${inner.message}`, severity: severityOf(inner) });
    } else {
      flat.push({ path: issue.path, message: issue.message, severity: severityOf(issue) });
    }
  }
  return flat;
}

const UNKNOWN_FIELD = "unknown field: not in the spec's manifest table (a typo, or a field the vendor added since)";
