/**
 * The MCP tools take a source: the official SDK's client over Streamable HTTP against the real
 * Node service, which polled the simulated vendor and a simulated page in the Statuspage format.
 * Each tool asked about a watched page answers what the HTTP faces answer for it (`?source=`), its
 * JSON schema says so, and an unknown or malformed source is refused as the HTTP faces refuse it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { connectMcp, mcpArchive, type McpTestClient } from './mcp-helpers.ts';

const PUBLIC_URL = 'https://status.example.test';

describe('MCP tools over a watched status page', () => {
  let vendor: TestVendor;
  let page: RunningSimulatedStatuspage;
  let service: TestService;
  let mcp: McpTestClient;
  let sourceId: string;
  /** The service's clock: the real one, or an instant the test holds it at. */
  let heldAtMs: number | undefined;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents(mcpArchive());
    page = await startSimulatedStatuspage({ name: 'Acme Cloud' });
    service = await startTestService(vendor.url, { env: { PUBLIC_URL, WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: { now: () => heldAtMs ?? Date.now() } });
    sourceId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url })).body.source.id;
    page.page.advance(); // its story's incident opens: API partially out
    expect((await service.admin('POST', '/api/admin/poll')).status).toBe(200);
    mcp = await connectMcp(service.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await service?.close();
    await page?.close();
    await vendor?.close();
  });

  it('documents `source` in the schemas of current_status, search_incidents, get_incident and reliability', async () => {
    const { tools } = await mcp.client.listTools();
    for (const name of ['current_status', 'search_incidents', 'get_incident', 'reliability']) {
      const property = tools.find((t) => t.name === name)!.inputSchema.properties?.source as { type: string; description: string };
      expect([name, property?.type]).toEqual([name, 'string']);
      expect(property.description).toContain('"main"');
    }
  });

  it("current_status for the page answers what /widget.json?source= answers, naming the page; the vendor's stays its own", async () => {
    const result = await mcp.call('current_status', { source: sourceId });
    expect(result.isError).toBeFalsy();
    const widget = await service.get(`/widget.json?source=${sourceId}`);
    expect(result.structuredContent).toEqual({ ok: true, ...widget.body });
    expect(result.structuredContent).toMatchObject({ state: 'outage', source: { id: sourceId, name: 'Acme Cloud' } });
    expect(result.content[0]!.text).toContain(`Status page: Acme Cloud (${sourceId})`);
    const vendorStatus = await mcp.call('current_status', {});
    expect(vendorStatus.structuredContent.source).toBeUndefined();
    expect(JSON.stringify(vendorStatus.structuredContent)).not.toContain(sourceId);
  });

  it('search_incidents with a source lists what /api/incidents?source= lists, each naming its source', async () => {
    const result = await mcp.call('search_incidents', { source: sourceId });
    expect(result.isError).toBeFalsy();
    const api = await service.get(`/api/incidents?source=${sourceId}`);
    const ids = result.structuredContent.incidents.map((i: { id: string }) => i.id);
    expect(ids).toEqual(api.body.incidents.map((i: { id: string }) => i.id));
    expect(ids).toEqual([`${sourceId}:swinc0000001`, `${sourceId}:swinc0000000`]);
    expect(result.structuredContent.incidents.every((i: { source: string }) => i.source === sourceId)).toBe(true);
    const main = await mcp.call('search_incidents', { source: 'main' });
    expect(main.structuredContent.incidents.length).toBeGreaterThan(0);
    expect(main.structuredContent.incidents.every((i: { source: string }) => i.source === 'main')).toBe(true);
  });

  it('get_incident finds an incident in its own source only', async () => {
    const id = `${sourceId}:swinc0000001`;
    const found = await mcp.call('get_incident', { id, source: sourceId });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toMatchObject({ incident: { id, source: sourceId, title: 'Elevated API error rates' } });
    expect((await mcp.call('get_incident', { id })).isError).toBeFalsy();
    const elsewhere = await mcp.call('get_incident', { id, source: 'main' });
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.structuredContent).toMatchObject({ ok: false, error: 'incident_not_found' });
  });

  it("reliability for the page gives the figures /api/reliability?source= gives, named and linked to the page's chart; the vendor's stay its own", async () => {
    // The page was added a moment ago and its outage goes on: its figures move with every
    // millisecond, so both reads are made at one instant of the service's clock.
    heldAtMs = Date.now();
    const [result, api] = await Promise.all([
      mcp.call('reliability', { source: sourceId, window: '30d' }),
      service.get(`/api/reliability?source=${sourceId}`).then((res) => res.body),
    ]).finally(() => (heldAtMs = undefined));
    expect(result.isError).toBeFalsy();
    const apiRows = api.availability.services.map((s: { service: string; windows: { days: number; availability: number | null }[] }) => [
      s.service,
      s.windows.find((w) => w.days === 30)!.availability,
    ]);
    const toolRows = result.structuredContent.services.map((s: { service: string; availability: number | null }) => [s.service, s.availability]);
    expect(toolRows).toEqual(apiRows);
    // The page's story has its API partially out since the last poll: a component of the page, not
    // the vendor's, and down for part of the few seconds the page has been watched.
    expect(toolRows.map(([name]: [string]) => name)).toContain('API');
    expect(toolRows.find(([name]: [string]) => name === 'API')[1]).toBeLessThan(1);
    expect(result.structuredContent).toMatchObject({
      source: { id: sourceId, name: 'Acme Cloud' },
      dashboard_url: `${PUBLIC_URL}/reliability?source=${sourceId}`,
    });
    expect(result.content[0]!.text).toContain('Availability of Acme Cloud over the last 30 days');
    // One of the page's components by name; a name that is not one is refused as on the vendor's.
    expect((await mcp.call('reliability', { source: sourceId, service: 'API' })).structuredContent.services).toHaveLength(1);
    expect((await mcp.call('reliability', { source: sourceId, service: 'Files' })).structuredContent).toMatchObject({ ok: false, error: 'unknown_service' });
    const vendor = await mcp.call('reliability', {});
    expect(vendor.structuredContent.source).toBeUndefined();
    expect(vendor.structuredContent.services.map((s: { service: string }) => s.service)).not.toContain('API');
    expect((await mcp.call('reliability', { source: 'src_nope' })).structuredContent).toMatchObject({ ok: false, error: 'source_not_found' });
  });

  it('refuses an unknown source (source_not_found) and a malformed one (invalid_request)', async () => {
    const unknown = await mcp.call('current_status', { source: 'src_nope' });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ ok: false, error: 'source_not_found' });
    for (const [tool, args] of [
      ['current_status', {}],
      ['search_incidents', {}],
      ['get_incident', { id: '1' }],
    ] as const) {
      const bad = await mcp.call(tool, { ...args, source: 'not a source' });
      expect([tool, bad.isError, bad.structuredContent?.error]).toEqual([tool, true, 'invalid_request']);
    }
  });
});
