/**
 * The MCP server inside workerd (issue 13): the Worker's /mcp answers the SDK's client over
 * Streamable HTTP from an archive its cron handler filled into D1, stateless as a Worker must be.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createExecutionContext, createScheduledController, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import worker, { type WorkerEnv } from '../../src/entry/worker.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { emptyD1 } from './d1-reset.ts';
import type {} from './provided-context.ts';

const simUrl = inject('simUrl');
const testEnv = env as unknown as WorkerEnv;

async function publish(incidents: unknown[]): Promise<void> {
  const res = await fetch(`${simUrl}/_sim/incidents`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(incidents) });
  if (!res.ok) throw new Error(`publish: ${res.status}`);
}

describe("the Worker's MCP server", () => {
  beforeEach(async () => {
    await emptyD1(testEnv.DB as unknown as D1DatabaseLike);
  });

  it('lists the tools and answers search_incidents and current_status from D1', async () => {
    await publish([rawIncident({ id: 31, title: 'Huddles dropping', services: ['Huddles'], status: 'active' })]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), testEnv, ctx);
    await waitOnExecutionContext(ctx);

    const client = new Client({ name: 'workers-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://statuswatch.test/mcp'), { fetch: (input, init) => SELF.fetch(input, init) }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'current_status',
        'get_incident',
        'recent_changes',
        'reliability',
        'search_incidents',
      ]);
      const found = (await client.callTool({ name: 'search_incidents', arguments: { q: 'huddles', service: 'Huddles' } })) as {
        structuredContent: { incidents: { id: string }[] };
      };
      expect(found.structuredContent.incidents.map((i) => i.id)).toEqual(['31']);
      const now = (await client.callTool({ name: 'current_status', arguments: { services: ['Huddles'] } })) as { structuredContent: { services: unknown[] } };
      expect(now.structuredContent.services).toEqual([{ name: 'Huddles', state: 'incident' }]);
    } finally {
      await client.close();
    }
  });
});
