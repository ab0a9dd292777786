/**
 * A manifest as text: JSON or YAML in (one parser, YAML 1.2 reads both), JSON or YAML out.
 * Problems of the text itself (syntax, a key given twice) are violations like the schema's.
 */
import { isMap, isScalar, isSeq, parseDocument, stringify, type Node } from 'yaml';
import { manifestPath, type ManifestViolation } from './app-manifest-fields.ts';

export type ManifestText = { ok: true; manifest: unknown } | { ok: false; violations: ManifestViolation[] };

/** Aliases a YAML file may expand: a few small anchors are normal, a billion laughs is not. */
const MAX_ALIAS_COUNT = 100;

export function parseManifestText(source: string): ManifestText {
  try {
    // uniqueKeys off: a key given twice is reported below with its path, not as a syntax error.
    const document = parseDocument(source, { uniqueKeys: false, prettyErrors: false });
    if (document.errors.length > 0) {
      return {
        ok: false,
        violations: document.errors.map((error) => {
          const at = error.linePos?.[0];
          return { path: at ? `line ${at.line}, column ${at.col}` : '(root)', message: `not valid JSON or YAML: ${error.message}` };
        }),
      };
    }
    const duplicates = duplicateKeys(document.contents);
    if (duplicates.length > 0) return { ok: false, violations: duplicates };
    return { ok: true, manifest: document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    // Nesting deep enough to exhaust the parser's stack, or aliases past the limit.
    const reason = error instanceof RangeError ? 'nested too deeply' : error instanceof Error ? error.message : String(error);
    return { ok: false, violations: [{ path: '(root)', message: `cannot be read: ${reason}` }] };
  }
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
        if (seen.has(key)) found.push({ path: manifestPath([...path, key]), message: `given twice in ${manifestPath(path)}: keys must be unique` });
        seen.add(key);
        pending.push({ node: pair.value, path: [...path, key] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => pending.push({ node: item, path: [...path, index] }));
    }
  }
  return found;
}

export function formatManifest(manifest: unknown, format: 'json' | 'yaml'): string {
  // lineWidth 0: a long description stays on one line instead of being folded.
  return format === 'json' ? `${JSON.stringify(manifest, null, 2)}\n` : stringify(manifest, { lineWidth: 0 });
}
