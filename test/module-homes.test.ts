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
const ROUTE_EXPORTS_SHARED = new Set(['newTokenBody', 'assetUrl', 'StaticAsset', 'StaticAssets', 'requireAdmin']);

describe('where each rule lives', () => {
  const all = imports();

  it('the OpenAPI document is read only by what serves or checks the document', () => {
    const readers = all.filter((i) => i.file === 'src/http/openapi/openapi-document.ts').map((i) => `${i.from}: ${i.names.join(', ')}`);
    expect(readers.sort()).toEqual([
      'src/http/openapi/group-operations.ts: ApiOperation',
      'src/http/read-params.ts: API_OPERATIONS',
      'src/http/routes/openapi.tsx: buildOpenApiDocument',
    ]);
  });

  it('route files give other modules their routes, never a rule such as an error mapping', () => {
    const taken = all
      .filter((i) => i.file.startsWith('src/http/routes/') && i.from !== 'src/http/app.ts')
      // A route module's routes and the deps type they declare are what it is for; anything else is a rule.
      .flatMap((i) => i.names.filter((n) => !/Routes$|^register[A-Z]|Deps$/.test(n) && !ROUTE_EXPORTS_SHARED.has(n)).map((n) => `${i.from}: ${n}`));
    expect(taken).toEqual([]);
  });

  it('the use cases and the core import nothing from the HTTP layer', () => {
    const upward = all.filter((i) => /^src\/(app|core)\//.test(i.from) && i.file.startsWith('src/http/')).map((i) => `${i.from} → ${i.file}`);
    expect(upward).toEqual([]);
  });

  it('the JSON routes and the admin pages create, change and list subscriptions and deliveries through the same functions in src/app', () => {
    // Each use case, by the faces that call it: the JSON route and the admin page of the same resource.
    const faces: Record<string, string[]> = {
      subscriptionRequests: ['src/http/routes/subscriptions.ts', 'src/http/routes/admin-subscription-pages.tsx'],
      subscriptionPage: ['src/http/routes/subscriptions.ts', 'src/http/routes/admin-subscription-pages.tsx'],
      deliveryPage: ['src/http/routes/subscriptions.ts', 'src/http/routes/admin-delivery-pages.tsx'],
      replayDeliveriesSince: ['src/http/routes/subscriptions.ts', 'src/http/routes/admin-delivery-pages.tsx'],
      replayDelivery: ['src/http/routes/subscriptions.ts', 'src/http/routes/admin-delivery-pages.tsx'],
    };
    for (const [useCase, callers] of Object.entries(faces)) {
      const homes = callers.map((face) =>
        all
          .find((i) => i.from === face && i.names.includes(useCase))
          ?.file.split('/')
          .slice(0, 2)
          .join('/'),
      );
      expect(homes, useCase).toEqual(callers.map(() => 'src/app'));
    }
  });

  it('the API, the public pages and the MCP tools search incidents and read one incident through the same functions in src/app', () => {
    const faces = ['src/http/routes/incidents.ts', 'src/http/routes/dashboard.tsx', 'src/http/mcp/tools.ts'];
    for (const useCase of ['searchIncidents', 'incidentHistory']) {
      const homes = faces.map((face) => all.find((i) => i.from === face && i.names.includes(useCase))?.file);
      expect(homes, useCase).toEqual(faces.map(() => expect.stringMatching(/^src\/app\//)));
    }
  });

  it('the admin pages of each resource live in their own module', () => {
    const homes: Record<string, string> = {
      '/admin/subscriptions': 'src/http/routes/admin-subscription-pages.tsx',
      '/admin/new-subscription': 'src/http/routes/admin-subscription-pages.tsx',
      '/admin/deliveries': 'src/http/routes/admin-delivery-pages.tsx',
      '/admin/delivery-replays': 'src/http/routes/admin-delivery-pages.tsx',
      '/admin/polls': 'src/http/routes/admin-poll-pages.tsx',
    };
    const routes = sourceFiles('src/http/routes').flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/app\.(?:get|post)\([`'](\/admin\/[a-z-]+)/g)].map((m) => [m[1]!, file] as const),
    );
    for (const [path, file] of routes) if (path in homes) expect(file, path).toBe(homes[path]);
    expect(Object.keys(homes).every((path) => routes.some(([p]) => p === path))).toBe(true);
  });

  it("the Worker's main module exports its handlers and types only: workerd takes any other export for an entrypoint and refuses to start", () => {
    const source = readFileSync(join(ROOT, 'src/entry/worker.ts'), 'utf8');
    const values = [...source.matchAll(/^export\s+(?!default\b|type\b|interface\b)(\w+\s+\w+)/gm)].map((m) => m[1]);
    expect(values).toEqual([]);
  });
});
