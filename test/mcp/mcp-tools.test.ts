/**
 * The MCP server end to end: the official SDK's client over Streamable HTTP, against the
 * real Node service whose archive a real poll of the simulated vendor filled, calls every tool.
 * The MCP Inspector's command-line mode lists the tools as an independent check.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { cursorPayload } from '../helpers/cursor-payload.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { connectMcp, mcpArchive, rawMcpCall, type McpTestClient } from './mcp-helpers.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const PUBLIC_URL = 'https://status.example.test';
const TOOLS = ['current_status', 'get_incident', 'recent_changes', 'reliability', 'search_incidents'];

describe('MCP server over Streamable HTTP', () => {
  let vendor: TestVendor;
  let service: TestService;
  let mcp: McpTestClient;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents(mcpArchive());
    service = await startTestService(vendor.url, { env: { PUBLIC_URL } });
    expect((await service.poll()).events.length).toBeGreaterThan(0);
    mcp = await connectMcp(service.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await service?.close();
    await vendor?.close();
  });

  it('lists the five tools, each with an input schema and a description', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
    }
    const search = tools.find((t) => t.name === 'search_incidents')!;
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['cursor', 'limit', 'q', 'service', 'since', 'source', 'status', 'type', 'until']);
  });

  it('current_status: the incident going on, per service, with links under PUBLIC_URL', async () => {
    const result = await mcp.call('current_status', { services: ['Messaging', 'Files', 'Zeppelins'] });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      state: 'incident',
      stale: false,
      services: [
        { name: 'Messaging', state: 'incident' },
        { name: 'Files', state: 'ok' },
        // Never claim what we cannot know: a name the archive never saw is unknown, not ok.
        { name: 'Zeppelins', state: 'unknown' },
      ],
      incidents: [{ id: '2002', url: `${PUBLIC_URL}/incidents/2002` }],
    });
    expect(result.content[0]!.text).toContain('Messaging: incident');
    // The same question, the same answer: the widget is read one way for every face.
    const widget = await service.get('/widget.json?service=Messaging,Files,Zeppelins');
    expect(result.structuredContent).toEqual({ ok: true, ...widget.body });
    expect(result.content[0]!.text).toContain(`${PUBLIC_URL}/`);
  });

  it('current_status: while the latest reads fail, says the state is as of the last good read, in the words of every face', async () => {
    const before = await mcp.call('current_status', {});
    const lastReadAt = before.structuredContent.last_read_at as string;
    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    try {
      expect((await service.poll()).run.outcome).toBe('failed');
      const result = await mcp.call('current_status', {});
      expect(result.structuredContent).toMatchObject({ state: 'incident', stale: false, reads_failing: true, last_read_at: lastReadAt });
      expect(result.content[0]!.text).toContain(`As of ${lastReadAt}, the last good read of the vendor's feed: the reads since failed.`);
    } finally {
      await vendor.clearFaults();
      expect((await service.poll()).run.outcome).toBe('ok');
    }
  });

  it('search_incidents: what broke in Files last quarter and for how long, as /api/incidents answers it', async () => {
    const args = { service: 'Files', since: '2026-07-01', until: '2026-10-01' };
    const result = await mcp.call('search_incidents', args);
    expect(result.isError).toBeFalsy();
    const api = await service.get('/api/incidents?service=Files&since=2026-07-01&until=2026-10-01');
    expect(result.structuredContent.incidents.map((i: any) => i.id)).toEqual(api.body.incidents.map((i: any) => i.id));
    expect(result.structuredContent).toMatchObject({ total: api.body.total, total_exact: api.body.total_exact });
    expect(result.structuredContent.incidents).toEqual([
      expect.objectContaining({ id: '2001', type: 'outage', duration_seconds: 9000, dashboard_url: `${PUBLIC_URL}/incidents/2001`, vendor_url: null }),
    ]);
    expect(result.structuredContent.dashboard_url).toBe(`${PUBLIC_URL}/incidents?service=Files&since=2026-07-01&until=2026-10-01`);
    expect(result.content[0]!.text).toContain('lasted 2 h 30 min');
  });

  it('search_incidents: pages with the cursor, and refuses what the API refuses, with its reason', async () => {
    const first = await mcp.call('search_incidents', { limit: 2 });
    expect(first.structuredContent.incidents.map((i: any) => i.id)).toEqual(['2002', '2003']);
    const second = await mcp.call('search_incidents', { limit: 2, cursor: first.structuredContent.next_cursor });
    expect(second.structuredContent).toMatchObject({ incidents: [{ id: '2001' }], next_cursor: '' });

    const words = Array.from({ length: 9 }, (_, i) => `word${i}`).join(' ');
    const tooMany = await mcp.call('search_incidents', { q: words });
    expect(tooMany).toMatchObject({ isError: true, structuredContent: { error: 'invalid_query' } });
    expect((await service.get(`/api/incidents?q=${encodeURIComponent(words)}`)).body.error).toBe('invalid_query');
    expect(await mcp.call('search_incidents', { service: 'Filez' })).toMatchObject({ isError: true, structuredContent: { error: 'unknown_service' } });
    expect(await mcp.call('search_incidents', { cursor: 'forged' })).toMatchObject({ isError: true, structuredContent: { error: 'invalid_cursor' } });
    expect(await mcp.call('search_incidents', { since: 'last tuesday' })).toMatchObject({ isError: true, structuredContent: { error: 'invalid_request' } });
  });

  it('get_incident: notes as plain text, never the vendor HTML, and the change history', async () => {
    const result = await mcp.call('get_incident', { id: '2001' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.incident.notes.map((n: any) => n.text)).toEqual(['Uploads fail for all files.', 'Resolved: a storage node was replaced.']);
    expect(result.structuredContent.changes.map((e: any) => e.type)).toContain('incident.created');
    const everything = JSON.stringify(result);
    for (const markup of ['<img', 'onerror', '<p>', 'javascript:']) expect(everything).not.toContain(markup);
    expect(await mcp.call('get_incident', { id: '9999' })).toMatchObject({ isError: true, structuredContent: { error: 'incident_not_found' } });
  });

  it('gives an incident the same fields, in the same order, in search_incidents and get_incident, as the API has them', async () => {
    const fields = [
      'id',
      'source',
      'title',
      'type',
      'status',
      'services',
      'created_at',
      'updated_at',
      'resolved_at',
      'duration_seconds',
      'dashboard_url',
      'vendor_url',
    ];
    const listed = (await mcp.call('search_incidents', { service: 'Files', since: '2026-07-01', until: '2026-10-01' })).structuredContent.incidents[0];
    const own = (await mcp.call('get_incident', { id: '2001' })).structuredContent.incident;
    expect(Object.keys(listed)).toEqual([...fields, 'note_count', 'latest_note']);
    expect(Object.keys(own)).toEqual([...fields, 'notes']);
    const api = (await service.get('/api/incidents/2001')).body.incident;
    const expected = {
      id: '2001',
      source: 'main',
      title: api.title,
      type: 'outage',
      status: api.status,
      services: api.services,
      created_at: api.created_at,
      updated_at: api.updated_at,
      resolved_at: api.resolved_at,
      duration_seconds: 9000,
      dashboard_url: `${PUBLIC_URL}/incidents/2001`,
      vendor_url: null,
    };
    expect(listed).toEqual({
      ...expected,
      note_count: 2,
      latest_note: { created_at: api.notes[1].created_at, text: 'Resolved: a storage node was replaced.' },
    });
    expect(own).toEqual({ ...expected, notes: api.notes.map((n: { created_at: string; text: string }) => ({ created_at: n.created_at, text: n.text })) });
  });

  it('reliability: the track record of one service over a window, as /api/reliability figures it', async () => {
    const result = await mcp.call('reliability', { service: 'Files', window: '90d' });
    expect(result.isError).toBeFalsy();
    const api = await service.get('/api/reliability');
    const files = api.body.availability.services.find((s: any) => s.service === 'Files').windows.find((w: any) => w.days === 90);
    expect(result.structuredContent.services).toEqual([
      expect.objectContaining({
        service: 'Files',
        window_days: 90,
        incidents: files.incidents,
        availability: files.availability,
        downtime_ms: files.downtime_ms,
      }),
    ]);
    expect(result.structuredContent.dashboard_url).toBe(`${PUBLIC_URL}/reliability`);
    expect(await mcp.call('reliability', { service: 'Filez' })).toMatchObject({ isError: true, structuredContent: { error: 'unknown_service' } });
    // A name only the vendor's old history uses is known, but has no figures: said, not left blank.
    const calls = await mcp.call('reliability', { service: 'Calls' });
    expect(calls.structuredContent.services).toEqual([]);
    expect(calls.content[0]!.text).toContain('Calls: no figures');
    // The schema refuses a window there is no figure for.
    expect(await mcp.call('reliability', { window: '7d' })).toMatchObject({ isError: true });
  });

  it('recent_changes: what changed since a time, not the seeding of the archive', async () => {
    const since = new Date().toISOString();
    expect((await mcp.call('recent_changes', { since: '2020-01-01' })).structuredContent.events).toEqual([]);
    const [files, messaging, search] = mcpArchive();
    await vendor.setIncidents([
      files!,
      rawIncident({
        ...messaging!,
        status: 'resolved',
        date_updated: '2026-10-01T07:00:00-07:00',
        notes: [...messaging!.notes, { body: '<p>Fixed.</p>', date_created: '2026-10-01T07:00:00-07:00' }],
      }),
      search!,
    ]);
    await service.poll();
    const result = await mcp.call('recent_changes', { since });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.events.map((e: any) => e.incident_id)).toEqual(expect.arrayContaining(['2002']));
    expect(result.structuredContent.events).toContainEqual(
      expect.objectContaining({
        type: 'incident.status_changed',
        data: expect.objectContaining({ from: 'active', to: 'resolved', note: expect.objectContaining({ text: 'Fixed.' }) }),
      }),
    );
    expect(result.structuredContent.feed).toMatchObject({ stale: false });
    expect(result.content[0]!.text).toContain(`${PUBLIC_URL}/incidents/2002`);
  });

  it('recent_changes: pages with the cursor, which keeps the time the first page was asked from', async () => {
    const since = '2020-01-01';
    const all = (await mcp.call('recent_changes', { since, limit: 100 })).structuredContent;
    expect([all.events.length > 1, all.next_cursor]).toEqual([true, '']);
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      // A later `since` beside a cursor is not read: the cursor's own time is.
      const page = (await mcp.call('recent_changes', cursor ? { since: '2030-01-01', limit: 1, cursor } : { since, limit: 1 })).structuredContent;
      ids.push(...page.events.map((e: { id: string }) => e.id));
      if (!page.next_cursor) break;
      expect(cursorPayload(page.next_cursor)).toEqual({ k: 'recent_changes', s: expect.any(Number), t: Date.parse(since) });
      cursor = page.next_cursor;
    }
    expect(ids).toEqual(all.events.map((e: { id: string }) => e.id));
    const searchCursor = (await mcp.call('search_incidents', { limit: 1 })).structuredContent.next_cursor;
    expect(await mcp.call('recent_changes', { cursor: searchCursor })).toMatchObject({ isError: true, structuredContent: { error: 'invalid_cursor' } });
  });

  it('has no server-to-client stream: GET is 405', async () => {
    expect((await fetch(`${service.url}/mcp`)).status).toBe(405);
  });

  it("refuses a browser page of another origin (DNS rebinding), and answers one of PUBLIC_URL's", async () => {
    expect((await rawMcpCall(service.url, 'tools/list', { origin: 'https://evil.example' })).status).toBe(403);
    expect((await rawMcpCall(service.url, 'tools/list', { origin: PUBLIC_URL })).status).toBe(200);
  });

  it("is listed the same by the MCP Inspector's command-line mode, run as docs/mcp.md says (Node 20 included)", async () => {
    // The documented command, word for word but the URL: `npm run -s mcp:inspect -- URL ...`.
    const { stdout } = await promisify(execFile)(
      'npm',
      ['run', '-s', 'mcp:inspect', '--', `${service.url}/mcp`, '--transport', 'http', '--method', 'tools/list'],
      {
        timeout: 30_000,
        cwd: REPO_ROOT,
      },
    );
    const listed = JSON.parse(stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(TOOLS);
  });
});

describe('MCP rate limit', () => {
  let vendor: TestVendor;
  let service: TestService;
  beforeAll(async () => {
    vendor = await startTestVendor();
    service = await startTestService(vendor.url, { env: { MCP_RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('answers a client at most MCP_RATE_LIMIT_PER_MINUTE times a minute, then 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await rawMcpCall(service.url, 'tools/list')).status).toBe(200);
    const refused = await rawMcpCall(service.url, 'tools/list');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('rate limited') } });
  });
});
