/**
 * One rule for a watched page's state as a whole (both projects: a SQLite file on Node, D1 in
 * workerd; real HTTP on loopback): the dashboard's overview row and `/widget.json?source=` say the
 * same of the same page in each of the five states, and when the page names two components alike
 * (in different groups) or reports a group's own state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComponentState } from '../../src/core/statuspage/mapping.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';

const MINUTE_MS = 60_000;

const component = (id: string, name: string, status: ComponentState['status'], extra: Partial<ComponentState> = {}): ComponentState => ({
  id,
  name,
  status,
  vendorStatus: status,
  groupId: null,
  position: null,
  isGroup: false,
  ...extra,
});

describe("a watched page's state, on the overview and its widget alike", () => {
  let vendor: TestVendor;
  let page: TestStatuspage;
  let service: TestApp;
  let sourceId: string;
  let nowMs = Date.now();

  const get = async (path: string) => {
    nowMs += 1_500;
    const res = await service.fetch(service.url + path);
    return res.text();
  };
  /** The page as its faces show it: the overview row's word and the widget's state. */
  const faces = async () => {
    const home = await get('/');
    const row = home.slice(home.indexOf('id="sources-title"'));
    const overview = /state-now-[a-z]+">([^<]+)</.exec(row)?.[1];
    const widget = JSON.parse(await get(`/widget.json?source=${sourceId}`)).state;
    return { overview, widget };
  };
  /** The page as a poll that read it `readAgoMs` ago would leave it. */
  const pageReads = async (components: ComponentState[], readAgoMs = 0) => {
    nowMs += 31_000; // past the widget's and the pages' cached answers
    await service.store.saveComponentStates(sourceId, components, nowMs - readAgoMs);
    const source = await service.store.getSource(sourceId);
    await service.store.savePollState(sourceId, { ...source!.poll, lastSuccessAt: nowMs - readAgoMs, consecutiveFailures: 0 });
  };

  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 41 })]);
    page = await startTestStatuspage({ name: 'Acme Cloud' });
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: { now: () => nowMs } });
    await service.poll();
    sourceId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url })).body.source.id;
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), page?.close()]);
  });

  it('says the same in each of the five states', async () => {
    const cases: [string, ComponentState['status'], number, { overview: string; widget: string }][] = [
      ['every component operational', 'operational', 0, { overview: 'Operational', widget: 'ok' }],
      ['a component degraded', 'degraded_performance', 0, { overview: 'Degraded', widget: 'incident' }],
      ['a component partly out', 'partial_outage', 0, { overview: 'Outage', widget: 'outage' }],
      ['a component under maintenance', 'under_maintenance', 0, { overview: 'Maintenance', widget: 'maintenance' }],
      ['read last 6 minutes ago, a component out', 'major_outage', 6 * MINUTE_MS, { overview: 'Unknown', widget: 'unknown' }],
    ];
    for (const [story, status, readAgoMs, expected] of cases) {
      await pageReads([component('a', 'API', status), component('w', 'Website', 'operational')], readAgoMs);
      expect([story, await faces()]).toEqual([story, expected]);
    }
  });

  it('counts two components of one name as the worse, and a group by its children, on both faces', async () => {
    await pageReads([
      component('g1', 'Europe', 'major_outage', { isGroup: true }),
      component('a1', 'API', 'major_outage', { groupId: 'g1' }),
      component('g2', 'America', 'operational', { isGroup: true }),
      component('a2', 'API', 'operational', { groupId: 'g2' }),
    ]);
    expect(await faces()).toEqual({ overview: 'Outage', widget: 'outage' });
    const widget = JSON.parse(await get(`/widget.json?source=${sourceId}`));
    expect(widget.services).toEqual([{ name: 'API', state: 'outage' }]);

    // A group row says outage while its children are fine: the children are what count.
    await pageReads([component('g1', 'Europe', 'major_outage', { isGroup: true }), component('a1', 'API', 'operational', { groupId: 'g1' })]);
    expect(await faces()).toEqual({ overview: 'Operational', widget: 'ok' });
  });
});
