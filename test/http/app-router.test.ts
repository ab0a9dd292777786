/** Hono's fastest router only takes route tables without ambiguous shapes: a new route must not push the app onto the slower trie. */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { openAppPorts } from '../helpers/app-ports.ts';

describe('the app', () => {
  it('is routed by RegExpRouter', async () => {
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const opened = await openAppPorts(logger);
    try {
      const poller = { pollOnce: async () => ({ status: 'skipped' as const, reason: 'another poll is running' as const }) };
      const app = createApp(await buildAppDeps({ ...opened.ports, poller }));
      await app.request('/healthz'); // SmartRouter picks its router on the first match
      expect((app.router as { name: string }).name).toBe('SmartRouter + RegExpRouter');
    } finally {
      await opened.close();
    }
  });
});
