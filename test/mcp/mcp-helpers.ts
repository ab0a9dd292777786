/** An MCP client of the official SDK over Streamable HTTP, and the archive the MCP tests ask. */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

export type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent: any };

export type McpTestClient = { client: Client; call(name: string, args?: Record<string, unknown>): Promise<ToolResult>; close(): Promise<void> };

/** Connects to `${url}/mcp`, with a bearer token when given. */
export async function connectMcp(url: string, token?: string): Promise<McpTestClient> {
  const client = new Client({ name: 'statuswatch-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

/** A JSON-RPC request to /mcp without a client, for what the HTTP layer decides (auth, limits). */
export async function rawMcpCall(url: string, method: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
  });
}

/**
 * A JSON-RPC request to /mcp over node:http, which (unlike fetch) sends the Host header given: what
 * a browser sends when an attacker's name resolves to this machine (DNS rebinding).
 */
export function mcpCallAsHost(
  url: string,
  host: string,
  method: string,
  headers: Record<string, string> = {},
  params: Record<string, unknown> = method === 'initialize' ? INITIALIZE_PARAMS : {},
): Promise<{ status: number; body: any }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: new URL(url).hostname,
        port: new URL(url).port,
        method: 'POST',
        path: '/mcp',
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'statuswatch-test', version: '1.0.0' } };

/**
 * Three incidents: a Files outage last quarter whose note carries hostile HTML, a Messaging
 * incident going on, and a Search notice. Dates are in 2026, the archive's present.
 */
export function mcpArchive(): RawIncident[] {
  return [
    rawIncident({
      id: 2001,
      title: 'File uploads failing <b>for everyone</b>',
      type: 'outage',
      status: 'resolved',
      services: ['Files'],
      url: 'javascript:alert(1)',
      date_created: '2026-08-10T09:00:00-07:00',
      date_updated: '2026-08-10T11:30:00-07:00',
      notes: [
        { body: '<p>Uploads fail <img src=x onerror="alert(1)"> for all files.</p>', date_created: '2026-08-10T09:00:00-07:00' },
        { body: '<p>Resolved: a <a href="https://example.test">storage</a> node was replaced.</p>', date_created: '2026-08-10T11:30:00-07:00' },
      ],
    }),
    rawIncident({ id: 2002, title: 'Messages delayed', type: 'incident', status: 'active', services: ['Messaging'] }),
    rawIncident({
      id: 2003,
      title: 'Search results slow',
      type: 'notice',
      status: 'resolved',
      services: ['Search'],
      date_created: '2026-09-02T10:00:00-07:00',
      date_updated: '2026-09-02T10:40:00-07:00',
    }),
  ];
}
