/**
 * The MCP server inside workerd: the Worker's /mcp answers the SDK's client over
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
    // Without PUBLIC_URL, /mcp answers loopback names only, as under `wrangler dev`.
    await client.connect(new StreamableHTTPClientTransport(new URL('http://localhost:8787/mcp'), { fetch: (input, init) => SELF.fetch(input, init) }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'current_status',
        'get_incident',
        'recent_changes',
        'reliability',
        'search_incidents',
      ]);
      const found = (await client.callTool({ name: 'search_incidents', arguments: { q: 'huddles', service: 'Huddles' } })) as unknown as {
        structuredContent: { incidents: { id: string }[] };
      };
      expect(found.structuredContent.incidents.map((i) => i.id)).toEqual(['31']);
      const now = (await client.callTool({ name: 'current_status', arguments: { services: ['Huddles'] } })) as unknown as {
        structuredContent: { services: unknown[] };
      };
      expect(now.structuredContent.services).toEqual([{ name: 'Huddles', state: 'incident' }]);
    } finally {
      await client.close();
    }
    // Any other name is refused: a page whose name was re-pointed here must not reach the tools.
    const rebound = await SELF.fetch('http://evil.example.com/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example.com' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(rebound.status).toBe(403);
  });
});

describe("the Worker's MCP server under MCP_AUTH=ema", () => {
  const idpUrl = inject('idpUrl');
  const CLIENT = { id: 'workers-agents', secret: 'workers-agents-secret-0123456789' };
  // Its own env object: the Worker builds one app per env, so these settings apply to it alone.
  const emaEnv = {
    ...(env as unknown as Record<string, unknown>),
    PUBLIC_URL: 'http://statuswatch.test',
    MCP_AUTH: 'ema',
    EMA_ISSUER: idpUrl,
    EMA_JWKS_URL: `${idpUrl}/.well-known/jwks.json`,
    EMA_CLIENT_ID: CLIENT.id,
    EMA_CLIENT_SECRET: CLIENT.secret,
  } as unknown as WorkerEnv;
  const workerFetch = async (url: string, init?: RequestInit) => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(url, init) as never, emaEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };

  it('verifies an ID-JAG with jose against the JWKS inside workerd, spends its jti in D1, and lets the access token in', async () => {
    await emptyD1(testEnv.DB as unknown as D1DatabaseLike);
    const login = (await (await fetch(`${idpUrl}/_sim/login`, { method: 'POST', body: JSON.stringify({ sub: 'U0WORKER' }) })).json()) as { id_token: string };
    const exchanged = (await (
      await fetch(`${idpUrl}/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
          subject_token: login.id_token,
          subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
          audience: 'http://statuswatch.test/mcp',
          client_id: CLIENT.id,
          scope: 'status:read',
        }),
      })
    ).json()) as { access_token: string };
    const grant = () =>
      workerFetch('http://statuswatch.test/api/oauth.v2.user.access', {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: exchanged.access_token,
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
        }),
      });
    const granted = await grant();
    expect(granted.status).toBe(200);
    const token = (await granted.json()) as { access_token: string; expires_in: number; scope: string };
    expect(token).toMatchObject({ expires_in: 3600, scope: 'status:read' });
    expect(await (await grant()).json()).toMatchObject({ error: 'invalid_grant' });

    const client = new Client({ name: 'workers-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://statuswatch.test/mcp'), {
        fetch: (input, init) => workerFetch(String(input), init),
        requestInit: { headers: { authorization: `Bearer ${token.access_token}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['current_status', 'recent_changes', 'reliability']);
    } finally {
      await client.close();
    }
  });
});
