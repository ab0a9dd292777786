/**
 * A `service` name is checked against the names of the source asked about (both projects: a
 * SQLite file on Node, D1 in workerd; real HTTP to the simulated vendor and a simulated page): a
 * watched page's component is no service of the vendor's, so asking the vendor's incidents for it
 * is refused as an unknown name instead of answered with an empty list ("never down"), and a
 * subscription to the vendor's feed cannot name it. A subscription's entries for a page are checked
 * against that page's components.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';

describe('service names of the source asked about', () => {
  let vendor: TestVendor;
  let page: TestStatuspage;
  let service: TestApp;
  let sourceId: string;

  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 41, services: ['Files'], type: 'outage' })]);
    page = await startTestStatuspage({ name: 'Code host' });
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await service.poll();
    sourceId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url })).body.source.id;
    // The page's story opens its incident: its API component partially out.
    expect((await fetch(`${page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
    expect((await service.admin('POST', `/api/admin/poll?source=${sourceId}`)).body.sources[0].outcome).toBe('ok');
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), page?.close()]);
  });

  const incidents = async (query: string) => {
    const res = await service.fetch(`${service.url}/api/incidents?${query}`);
    return { status: res.status, body: await res.json() };
  };

  it("refuses the page's component as a service of the vendor's feed, naming the vendor's services", async () => {
    const { status, body } = await incidents('source=main&service=API');
    expect(status).toBe(400);
    expect(body.error).toBe('unknown_service');
    expect(body.detail).toContain('API');
    expect(body.detail).toContain('Files');
  });

  it("finds the page's incident by its component, asked of the page or of every source", async () => {
    const ofPage = await incidents(`source=${sourceId}&service=API`);
    expect(ofPage.status).toBe(200);
    expect(ofPage.body.incidents.map((i: { title: string }) => i.title)).toContain('Elevated API error rates');
    expect(ofPage.body.incidents.every((i: { source: string }) => i.source === sourceId)).toBe(true);
    const ofAll = await incidents('service=API');
    expect(ofAll.status).toBe(200);
    expect(ofAll.body.incidents).toEqual(ofPage.body.incidents);
    const vendorFiles = await incidents('source=main&service=Files');
    expect(vendorFiles.body.incidents.map((i: { id: string }) => i.id)).toEqual(['41']);
  });

  it("refuses a subscription to the vendor's feed that names the page's component, and keeps one that names it on the page", async () => {
    const vendorOnly = await service.admin('POST', '/api/subscriptions', {
      channel: 'webhook',
      url: 'http://127.0.0.1:9/hook',
      filters: { services: ['API'] },
    });
    expect(vendorOnly.status, JSON.stringify(vendorOnly.body)).toBe(400);
    expect(vendorOnly.body.error, JSON.stringify(vendorOnly.body)).toBe('unknown_service');
    const onPage = await service.admin('POST', '/api/subscriptions', {
      channel: 'webhook',
      url: 'http://127.0.0.1:9/hook',
      filters: { sources: [sourceId], services: [`${sourceId}:API`] },
    });
    expect(onPage.status, JSON.stringify(onPage.body)).toBe(201);
  });

  it("refuses a subscription naming a component the page does not have, listing the page's names", async () => {
    const misspelt = await service.admin('POST', '/api/subscriptions', {
      channel: 'webhook',
      url: 'http://127.0.0.1:9/misspelt',
      filters: { sources: [sourceId], services: [`${sourceId}:Api`] },
    });
    expect([misspelt.status, misspelt.body.error]).toEqual([400, 'unknown_service']);
    expect(misspelt.body.detail).toContain(`${sourceId}:Api`);
    expect(misspelt.body.detail).toContain(`did you mean ${sourceId}:API`);
    const listed = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { url: string }[];
    expect(listed.map((s) => s.url)).not.toContain('http://127.0.0.1:9/misspelt');
  });
});
