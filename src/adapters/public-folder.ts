/** Reads the dashboard's static files (`public/`) into memory once, for staticAssetRoutes. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StaticAsset, StaticAssets } from '../http/routes/static-assets.ts';

export const PUBLIC_DIR = fileURLToPath(new URL('../../public', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

export function readPublicFolder(dir: string = PUBLIC_DIR): StaticAssets {
  const assets = new Map<string, StaticAsset>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const file = join(entry.parentPath, entry.name);
    const path = '/' + relative(dir, file).split(sep).join('/');
    const body = readFileSync(file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(path, { path, body, contentType: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', etag });
  }
  return assets;
}
