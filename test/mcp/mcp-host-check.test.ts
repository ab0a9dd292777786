/**
 * DNS rebinding: a web page whose name its owner re-points at this machine makes the browser send
 * that name as Host and Origin. /mcp answers only the names the service is known by: loopback
 * names, and PUBLIC_URL's host when it is set. The real Node service, raw requests over loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { mcpArchive, mcpCallAsHost } from './mcp-helpers.ts';

describe('/mcp without PUBLIC_URL', () => {
  let vendor: TestVendor;
  let service: TestService;
  let port: string;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents(mcpArchive());
    service = await startTestService(vendor.url);
    expect(service.config.PUBLIC_URL).toBeUndefined();
    await service.poll();
    port = new URL(service.url).port;
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('refuses a foreign Host, with or without a matching Origin, before answering initialize', async () => {
    const rebound = await mcpCallAsHost(service.url, 'evil.example.com', 'initialize', { origin: 'http://evil.example.com' });
    expect(rebound.status).toBe(403);
    expect(JSON.stringify(rebound.body)).not.toContain('serverInfo');
    expect((await mcpCallAsHost(service.url, `evil.example.com:${port}`, 'tools/list')).status).toBe(403);
    // A name of this machine on the network is not a name the default PUBLIC_URL (localhost) gives it.
    expect((await mcpCallAsHost(service.url, `192.168.1.20:${port}`, 'tools/list')).status).toBe(403);
    // A loopback Host with another site's Origin: a page elsewhere driving a local client's request.
    expect((await mcpCallAsHost(service.url, `127.0.0.1:${port}`, 'tools/list', { origin: 'http://evil.example.com' })).status).toBe(403);
  });

  it('answers loopback names, and links in tool answers start with the loopback origin asked', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost']) {
      const answer = await mcpCallAsHost(service.url, host, 'initialize', { origin: `http://${host}` });
      expect(answer.status, host).toBe(200);
      expect(answer.body.result.serverInfo.name).toBe('statuswatch');
    }
    const status = await mcpCallAsHost(service.url, `localhost:${port}`, 'tools/call', {}, { name: 'current_status', arguments: {} });
    expect(status.status).toBe(200);
    expect(status.body.result.structuredContent.incidents[0].url).toBe(`http://localhost:${port}/incidents/2002`);
  });
});

describe('/mcp with PUBLIC_URL', () => {
  const PUBLIC_URL = 'https://status.example.test';
  let vendor: TestVendor;
  let service: TestService;

  beforeAll(async () => {
    vendor = await startTestVendor();
    service = await startTestService(vendor.url, { env: { PUBLIC_URL } });
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it("answers PUBLIC_URL's host (as a proxy passes it on) and loopback names, and refuses any other", async () => {
    expect((await mcpCallAsHost(service.url, 'status.example.test', 'initialize', { origin: PUBLIC_URL })).status).toBe(200);
    expect((await mcpCallAsHost(service.url, `localhost:${new URL(service.url).port}`, 'initialize')).status).toBe(200);
    expect((await mcpCallAsHost(service.url, 'evil.example.com', 'initialize', { origin: 'http://evil.example.com' })).status).toBe(403);
    expect((await mcpCallAsHost(service.url, 'evil.example.com', 'initialize')).status).toBe(403);
  });
});
