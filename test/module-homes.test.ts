/**
 * Each rule has one home, and the faces (JSON routes, HTML pages, MCP tools, the CLI) call it: a
 * source scan of what imports what. The OpenAPI document describes the API and validates nothing;
 * a route file serves routes, and a refusal's mapping another face needs lives in its own module;
 * the use cases in src/app, like the core, know nothing of HTTP.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|tsx)$/.test(name))
    .map((name) =>
      relative(ROOT, join(ROOT, folder, name))
        .split('\\')
        .join('/'),
    );
}

type Import = { from: string; file: string; names: string[] };

/** Every relative `import { a, b } from './x.ts'` of the source, resolved to a path from the root. */
function imports(): Import[] {
  return sourceFiles('src').flatMap((from) => {
    const text = readFileSync(join(ROOT, from), 'utf8');
    return [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(\.[^']+)'/g)].map((m) => ({
      from,
      file: relative(ROOT, join(ROOT, dirname(from), m[2]!))
        .split('\\')
        .join('/'),
      names: m[1]!
        .split(',')
        .map((n) => n.trim().replace(/^type\s+/, ''))
        .filter(Boolean),
    }));
  });
}

/** Shared values route files still export for others: constants and the admin guard, no rules of a use case. */
const ROUTE_EXPORTS_SHARED = new Set([
  'STALE_AFTER_MS',
  'reliabilityFigures',
  'newTokenBody',
  'assetUrl',
  'StaticAsset',
  'StaticAssets',
  'AdminAppPageTools',
  'requireAdmin',
]);

describe('where each rule lives', () => {
  const all = imports();

  it('the OpenAPI document is read only by what serves or checks the document', () => {
    const readers = all.filter((i) => i.file === 'src/http/openapi/openapi-document.ts').map((i) => `${i.from}: ${i.names.join(', ')}`);
    expect(readers.sort()).toEqual([
      'src/http/openapi/group-operations.ts: ApiOperation',
      'src/http/pages/api-reference-page.tsx: ApiOperation',
      'src/http/pages/api-reference-page.tsx: toOpenApiPath',
      'src/http/read-params.ts: API_OPERATIONS',
      'src/http/routes/openapi.tsx: API_OPERATIONS, buildOpenApiDocument',
    ]);
  });

  it('route files give other modules their routes, never a rule such as an error mapping', () => {
    const taken = all
      .filter((i) => i.file.startsWith('src/http/routes/') && i.from !== 'src/http/app.ts')
      .flatMap((i) => i.names.filter((n) => !/Routes$|^register[A-Z]/.test(n) && !ROUTE_EXPORTS_SHARED.has(n)).map((n) => `${i.from}: ${n}`));
    expect(taken).toEqual([]);
  });

  it('the use cases and the core import nothing from the HTTP layer', () => {
    const upward = all.filter((i) => /^src\/(app|core)\//.test(i.from) && i.file.startsWith('src/http/')).map((i) => `${i.from} → ${i.file}`);
    expect(upward).toEqual([]);
  });

  it('the JSON routes and the admin pages create, change and list subscriptions and deliveries through the same functions in src/app', () => {
    const faces = ['src/http/routes/subscriptions.ts', 'src/http/routes/admin-pages.tsx'];
    const useCases = ['subscriptionRequests', 'subscriptionPage', 'deliveryPage', 'replayDeliveriesSince', 'replayDelivery'];
    for (const face of faces) {
      const homes = Object.fromEntries(
        all.filter((i) => i.from === face).flatMap((i) => i.names.filter((n) => useCases.includes(n)).map((n) => [n, i.file.split('/').slice(0, 2).join('/')])),
      );
      expect(homes, face).toEqual(Object.fromEntries(useCases.map((n) => [n, 'src/app'])));
    }
  });
});
