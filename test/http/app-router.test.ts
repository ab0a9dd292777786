/** Hono's fastest router only takes route tables without ambiguous shapes: a new route must not push the app onto the slower trie. */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { nodeAppPorts } from '../helpers/node-app-ports.ts';
import { openTempArchive, tempDir } from '../helpers/temp-archive.ts';

describe('the app', () => {
  it('is routed by RegExpRouter', async () => {
    const archive = openTempArchive(tempDir());
    try {
      const logger = { debug() {}, info() {}, warn() {}, error() {} };
      const poller = { pollOnce: async () => ({ status: 'skipped' as const, reason: 'another poll is running' as const }) };
      const app = createApp(await buildAppDeps({ ...(await nodeAppPorts(archive.store, logger)), poller }));
      await app.request('/healthz'); // SmartRouter picks its router on the first match
      expect((app.router as { name: string }).name).toBe('SmartRouter + RegExpRouter');
    } finally {
      archive.close();
    }
  });
});
