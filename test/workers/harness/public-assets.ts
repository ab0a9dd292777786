/**
 * The dashboard's files inside workerd, from the PUBLIC_ASSETS binding that vitest.config.ts fills
 * with what the Node form serves (adapters/public-folder.ts): same paths, bytes, types and ETags.
 * The Workers form serves `public/` through wrangler's [assets]; the app's own asset routes are
 * what these tests exercise.
 */
import { env } from 'cloudflare:workers';
import { fromBase64 } from '../../../src/core/bytes.ts';
import type { StaticAsset, StaticAssets } from '../../../src/http/routes/static-assets.ts';

/** One file as the binding carries it: JSON, so the bytes travel as base64. */
export type PublicAssetBinding = { path: string; base64: string; contentType: string; etag: string };

let assets: StaticAssets | undefined;

export function publicAssets(): StaticAssets {
  if (assets) return assets;
  const files = (env as unknown as { PUBLIC_ASSETS?: PublicAssetBinding[] }).PUBLIC_ASSETS;
  if (!files) throw new Error('no PUBLIC_ASSETS binding: vitest.config.ts passes public/ to the workers project');
  assets = new Map(
    files.map((f): [string, StaticAsset] => {
      const body = fromBase64(f.base64);
      if (!body) throw new Error(`PUBLIC_ASSETS ${f.path}: not base64`);
      return [f.path, { path: f.path, body, contentType: f.contentType, etag: f.etag }];
    }),
  );
  return assets;
}
