/**
 * One stateless MCP exchange over Streamable HTTP: a fresh server and transport per request (the
 * SDK's rule for stateless servers, so no answer can reach another client), answering in JSON.
 * Nothing lives between requests, so it runs the same in a Worker as on Node.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { McpScope } from '../../core/mcp-scopes.ts';
import { type McpToolDeps, registerTools } from './tools.ts';

/** A tool call is a few hundred bytes; a megabyte of JSON-RPC is not a question. */
const MAX_REQUEST_BYTES = 64 * 1024;

const INSTRUCTIONS =
  "statuswatch archives the vendor's public status feed. current_status answers 'is it down now'; " +
  'search_incidents and get_incident answer what broke, when and for how long; reliability gives availability figures; ' +
  "recent_changes lists what changed since a time. Links point at statuswatch's dashboard.";

export async function serveMcpRequest(request: Request, deps: McpToolDeps, scopes: readonly McpScope[]): Promise<Response> {
  // The SDK's default validator (ajv) compiles schemas with new Function, which workerd forbids.
  const server = new McpServer(
    { name: 'statuswatch', version: '0.1.0' },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  registerTools(server, deps, scopes);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_REQUEST_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    // The JSON answer is complete once handleRequest returns: nothing is left to stream.
    await server.close();
  }
}
