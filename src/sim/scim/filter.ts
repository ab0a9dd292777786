/**
 * The v1.1 `filter` parameter: a parser that refuses with the spec's error codes, and a matcher.
 *
 * Grammar (attribute names and operators case-insensitive; every part separated by ONE space;
 * parentheses may touch what they enclose):
 *
 *   filter     = or-expr
 *   or-expr    = and-expr *( SP "or" SP and-expr )          ; "and" binds tighter than "or"
 *   and-expr   = term *( SP "and" SP term )
 *   term       = "(" or-expr ")" / attribute SP "pr" / attribute SP compare-op SP value
 *   attribute  = "username" / "email" / "restricted" / "ultra_restricted"
 *   compare-op = "eq" / "co" / "sw" / "gt" / "ge" / "lt" / "le"
 *   value      = JSON string / "true" / "false"
 *
 * Errors: an empty filter is no_filters; a space rule broken or a part missing is incomplete_filter;
 * an unbalanced or empty group is invalid_filter_group; an unknown attribute or operator, a value
 * that is not JSON, or words left over is invalid_query; an operator that cannot apply to the
 * attribute's type (`restricted co "x"`, `username eq true`) is query_building_failed.
 */
import { ScimError } from './errors.ts';

export const FILTER_ATTRIBUTES = ['username', 'email', 'restricted', 'ultra_restricted'] as const;
export type FilterAttribute = (typeof FILTER_ATTRIBUTES)[number];
const COMPARE_OPS = ['eq', 'co', 'sw', 'gt', 'ge', 'lt', 'le'] as const;
type CompareOp = (typeof COMPARE_OPS)[number];

export type FilterExpr =
  | { kind: 'and' | 'or'; left: FilterExpr; right: FilterExpr }
  | { kind: 'present'; attribute: FilterAttribute }
  | { kind: 'compare'; attribute: FilterAttribute; op: CompareOp; value: string | boolean };

/** What a filter can see of one user. */
export type FilterSubject = { userName: string; emails: readonly string[]; restricted: boolean; ultraRestricted: boolean };

type Token =
  | { kind: 'open' | 'close'; at: number; spaced: boolean }
  | { kind: 'word'; text: string; at: number; spaced: boolean }
  | { kind: 'string'; value: string; at: number; spaced: boolean };

// A filter longer than this is no directory query anyone writes; refusing it bounds parser work.
export const MAX_FILTER_LENGTH = 2000;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let spaced = false;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === ' ') {
      if (i === 0 || i === text.length - 1 || text[i + 1] === ' ') {
        throw new ScimError('incomplete_filter', `a single space must separate parts (at character ${i})`);
      }
      spaced = true;
      i += 1;
      continue;
    }
    if (/\s/.test(ch)) throw new ScimError('incomplete_filter', `parts are separated by single spaces, not ${JSON.stringify(ch)}`);
    if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch === '(' ? 'open' : 'close', at: i, spaced });
      i += 1;
    } else if (ch === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) throw new ScimError('incomplete_filter', `string starting at character ${i} is not closed`);
      let value: unknown;
      try {
        value = JSON.parse(text.slice(i, end + 1));
      } catch {
        throw new ScimError('invalid_query', `${text.slice(i, end + 1)} is not a valid JSON string`);
      }
      tokens.push({ kind: 'string', value: value as string, at: i, spaced });
      i = end + 1;
    } else {
      let end = i;
      while (end < text.length && !' ()"'.includes(text[end] as string) && !/\s/.test(text[end] as string)) end += 1;
      tokens.push({ kind: 'word', text: text.slice(i, end), at: i, spaced });
      i = end;
    }
    spaced = false;
  }
  return tokens;
}

function isWord(token: Token | undefined, ...words: string[]): boolean {
  return token?.kind === 'word' && words.includes(token.text.toLowerCase());
}

class Parser {
  private index = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): FilterExpr {
    const expr = this.orExpr();
    const rest = this.tokens[this.index];
    if (rest?.kind === 'close') throw new ScimError('invalid_filter_group', `")" at character ${rest.at} closes no group`);
    if (rest) throw new ScimError('invalid_query', `unexpected ${describe(rest)} at character ${rest.at}; expected "and" or "or"`);
    return expr;
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  /** The next part after another word or string, which must be one space away. */
  private nextSpaced(what: string): Token {
    const token = this.tokens[this.index];
    if (!token) throw new ScimError('incomplete_filter', `expected ${what} at the end of the filter`);
    if (!token.spaced && token.kind !== 'close')
      throw new ScimError('incomplete_filter', `${describe(token)} at character ${token.at} must be separated by a space`);
    this.index += 1;
    return token;
  }

  private orExpr(): FilterExpr {
    let left = this.andExpr();
    while (isWord(this.peek(), 'or')) {
      this.nextSpaced('"or"');
      left = { kind: 'or', left, right: this.andExpr() };
    }
    return left;
  }

  private andExpr(): FilterExpr {
    let left = this.termRequired();
    while (isWord(this.peek(), 'and')) {
      this.nextSpaced('"and"');
      left = { kind: 'and', left, right: this.termRequired() };
    }
    return left;
  }

  private termRequired(): FilterExpr {
    const token = this.peek();
    if (!token) throw new ScimError('incomplete_filter', 'the filter ends where an expression should start');
    if (token.kind === 'open') {
      this.index += 1;
      if (this.peek()?.kind === 'close') throw new ScimError('invalid_filter_group', `empty group at character ${token.at}`);
      if (!this.peek()) throw new ScimError('invalid_filter_group', `group opened at character ${token.at} is never closed`);
      const inner = this.orExpr();
      const close = this.peek();
      if (close?.kind !== 'close') throw new ScimError('invalid_filter_group', `group opened at character ${token.at} is never closed`);
      this.index += 1;
      return inner;
    }
    if (token.kind === 'close') throw new ScimError('invalid_filter_group', `")" at character ${token.at} closes no group`);
    if (token.kind !== 'word') throw new ScimError('invalid_query', `expected an attribute name at character ${token.at}, got ${describe(token)}`);
    this.index += 1;
    const attribute = token.text.toLowerCase();
    if (!(FILTER_ATTRIBUTES as readonly string[]).includes(attribute)) {
      throw new ScimError('invalid_query', `unknown attribute ${JSON.stringify(token.text)}; filterable: ${FILTER_ATTRIBUTES.join(', ')}`);
    }
    const attr = attribute as FilterAttribute;
    const opToken = this.nextSpaced('an operator');
    if (opToken.kind !== 'word') throw new ScimError('invalid_query', `expected an operator at character ${opToken.at}`);
    const op = opToken.text.toLowerCase();
    if (op === 'pr') return { kind: 'present', attribute: attr };
    if (!(COMPARE_OPS as readonly string[]).includes(op)) {
      throw new ScimError('invalid_query', `unknown operator ${JSON.stringify(opToken.text)}; expected one of pr, ${COMPARE_OPS.join(', ')}`);
    }
    const valueToken = this.nextSpaced(`a value after "${op}"`);
    const value = literal(valueToken);
    const isBooleanAttribute = attr === 'restricted' || attr === 'ultra_restricted';
    if (isBooleanAttribute && (op !== 'eq' || typeof value !== 'boolean')) {
      throw new ScimError('query_building_failed', `${attr} compares only with eq true or eq false`);
    }
    if (!isBooleanAttribute && typeof value !== 'string') {
      throw new ScimError('query_building_failed', `${attr} compares with a string, got ${String(value)}`);
    }
    return { kind: 'compare', attribute: attr, op: op as CompareOp, value };
  }
}

function literal(token: Token): string | boolean {
  if (token.kind === 'string') return token.value;
  if (token.kind === 'word' && (token.text === 'true' || token.text === 'false')) return token.text === 'true';
  if (token.kind === 'close' || token.kind === 'open') throw new ScimError('incomplete_filter', `a value is missing before character ${token.at}`);
  throw new ScimError('invalid_query', `value ${describe(token)} at character ${token.at} is not a JSON string or boolean`);
}

function describe(token: Token): string {
  if (token.kind === 'word') return JSON.stringify(token.text);
  if (token.kind === 'string') return JSON.stringify(JSON.stringify(token.value));
  return token.kind === 'open' ? '"("' : '")"';
}

/** Parses the raw `filter` parameter (already URL-decoded). */
export function parseFilter(text: string): FilterExpr {
  if (text.trim() === '') throw new ScimError('no_filters', 'the filter parameter is empty');
  if (text.length > MAX_FILTER_LENGTH) throw new ScimError('invalid_query', `filter longer than ${MAX_FILTER_LENGTH} characters`);
  return new Parser(tokenize(text)).parse();
}

function compareText(actual: string, op: CompareOp, expected: string): boolean {
  // userName and email are case-insensitive in the directory, so their comparisons are too.
  const a = actual.toLowerCase();
  const b = expected.toLowerCase();
  switch (op) {
    case 'eq':
      return a === b;
    case 'co':
      return a.includes(b);
    case 'sw':
      return a.startsWith(b);
    case 'gt':
      return a > b;
    case 'ge':
      return a >= b;
    case 'lt':
      return a < b;
    case 'le':
      return a <= b;
  }
}

function values(subject: FilterSubject, attribute: FilterAttribute): Array<string | boolean> {
  switch (attribute) {
    case 'username':
      return [subject.userName];
    case 'email':
      return [...subject.emails];
    case 'restricted':
      return [subject.restricted];
    case 'ultra_restricted':
      return [subject.ultraRestricted];
  }
}

export function matchesFilter(expr: FilterExpr, subject: FilterSubject): boolean {
  switch (expr.kind) {
    case 'and':
      return matchesFilter(expr.left, subject) && matchesFilter(expr.right, subject);
    case 'or':
      return matchesFilter(expr.left, subject) || matchesFilter(expr.right, subject);
    case 'present':
      // A flag is "present" when set; a text attribute when not empty.
      return values(subject, expr.attribute).some((v) => v !== '' && v !== false);
    case 'compare':
      return values(subject, expr.attribute).some((v) =>
        typeof v === 'boolean' || typeof expr.value === 'boolean' ? v === expr.value : compareText(v, expr.op, expr.value),
      );
  }
}
