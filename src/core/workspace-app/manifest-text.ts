/**
 * A manifest as text: JSON or YAML in (one parser, YAML 1.2 reads both), JSON or YAML out.
 * Problems of the text itself (syntax, a key given twice) are violations like the schema's.
 */
import { Lexer, isMap, isScalar, isSeq, parseDocument, stringify, type Node } from 'yaml';
import { manifestPath, type ManifestViolation } from './manifest-fields.ts';
import { MANIFEST_MAX_DEPTH } from './manifest-schema.ts';

export type ManifestText = { ok: true; manifest: unknown } | { ok: false; violations: ManifestViolation[] };

/** Aliases a YAML file may expand: a few small anchors are normal, a billion laughs is not. */
const MAX_ALIAS_COUNT = 100;

/**
 * Indentation no manifest needs (64 levels of 8 spaces). The YAML parser recurses per level: a
 * thousand levels exhausted its stack, ten thousand brackets the process's memory (a crash).
 */
const MAX_INDENT_COLUMNS = MANIFEST_MAX_DEPTH * 8;
const DEEP_INDENT = new RegExp(`^ {${MAX_INDENT_COLUMNS + 1}}`, 'm');

export function parseManifestText(source: string): ManifestText {
  const tooDeep = nestingProblem(source);
  if (tooDeep) return { ok: false, violations: [{ path: '(root)', message: tooDeep, severity: 'error' }] };
  try {
    // uniqueKeys off: a key given twice is reported below with its path, not as a syntax error.
    const document = parseDocument(source, { uniqueKeys: false, prettyErrors: false });
    if (document.errors.length > 0) {
      return {
        ok: false,
        violations: document.errors.map((error) => {
          return { path: lineAndColumn(source, error.pos[0]), message: `not valid JSON or YAML: ${error.message}`, severity: 'error' };
        }),
      };
    }
    const duplicates = duplicateKeys(document.contents);
    if (duplicates.length > 0) return { ok: false, violations: duplicates };
    return { ok: true, manifest: document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    // Nesting deep enough to exhaust the parser's stack, or aliases past the limit.
    const reason = error instanceof RangeError ? 'nested too deeply' : error instanceof Error ? error.message : String(error);
    return { ok: false, violations: [{ path: '(root)', message: `cannot be read: ${reason}`, severity: 'error' }] };
  }
}

function lineAndColumn(source: string, offset: number): string {
  const before = source.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/**
 * Refuses nesting deeper than any manifest before the parser, which recurses per level, sees it:
 * flow brackets and compact block indicators (`- - - x`) counted on YAML's own tokens (so
 * brackets inside strings and comments are text), and the indentation of block style.
 */
function nestingProblem(source: string): string | undefined {
  if (DEEP_INDENT.test(source)) return `indented more than ${MAX_INDENT_COLUMNS} columns: nested deeper than a manifest can be`;
  const tooDeep = `nested more than ${MANIFEST_MAX_DEPTH} levels deep`;
  let flowDepth = 0;
  let indicatorsOnLine = 0;
  for (const token of new Lexer().lex(source)) {
    if (token === '[' || token === '{') {
      if (++flowDepth > MANIFEST_MAX_DEPTH) return tooDeep;
    } else if (token === ']' || token === '}') {
      flowDepth = Math.max(0, flowDepth - 1);
    } else if (token === '-' || token === '?') {
      if (++indicatorsOnLine > MANIFEST_MAX_DEPTH) return tooDeep;
    } else if (token.includes('\n')) {
      indicatorsOnLine = 0;
    }
  }
  return undefined;
}

/**
 * Keys that appear twice in one map, which JSON.parse would merge silently: function callback
 * ids must be unique, and any other key given twice hides one of its values.
 */
function duplicateKeys(root: Node | null): ManifestViolation[] {
  const found: ManifestViolation[] = [];
  const pending: { node: unknown; path: PropertyKey[] }[] = [{ node: root, path: [] }];
  while (pending.length > 0) {
    const { node, path } = pending.pop()!;
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (seen.has(key))
          found.push({ path: manifestPath([...path, key]), message: `given twice in ${manifestPath(path)}: keys must be unique`, severity: 'error' });
        seen.add(key);
        pending.push({ node: pair.value, path: [...path, key] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        pending.push({ node: item, path: [...path, index] });
      });
    }
  }
  return found;
}

export function formatManifest(manifest: unknown, format: 'json' | 'yaml'): string {
  // lineWidth 0: a long description stays on one line instead of being folded.
  return format === 'json' ? `${JSON.stringify(manifest, null, 2)}\n` : stringify(manifest, { lineWidth: 0 });
}
