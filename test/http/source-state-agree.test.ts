/**
 * One rule for a watched page's state as a whole (both projects: a SQLite file on Node, D1 in
 * workerd; real HTTP on loopback): the dashboard's overview row and `/widget.json?source=` say the
 * same of the same page in each of the five states, and when the page names two components alike
 * (in different groups) or reports a group's own state.
 */
import { describe, expect, it } from 'vitest';
import type { ComponentState } from '../../src/core/statuspage/mapping.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { componentState } from '../helpers/component-states.ts';
import { useSourceFaceWorld } from '../helpers/source-face-world.ts';

const MINUTE_MS = 60_000;

describe("a watched page's state, on the overview and its widget alike", () => {
  const world = useSourceFaceWorld({ pageName: 'Acme Cloud', vendorIncidents: [rawIncident({ id: 41 })] });
  const get = async (path: string) => (await world.get(path)).text;
  /** The page as its faces show it: the overview row's word and the widget's state. */
  const faces = async () => {
    const home = await get('/');
    const row = home.slice(home.indexOf('id="sources-title"'));
    const overview = /state-now-[a-z]+">([^<]+)</.exec(row)?.[1];
    const widget = JSON.parse(await get(`/widget.json?source=${world.sourceId}`)).state;
    return { overview, widget };
  };
  /** The page as a poll that read it `readAgoMs` ago would leave it. */
  const pageReads = async (components: ComponentState[], readAgoMs = 0) => {
    world.nowMs += 31_000; // past the widget's and the pages' cached answers
    await world.pageReads(components, readAgoMs);
  };

  it('says the same in each of the five states', async () => {
    const cases: [string, ComponentState['status'], number, { overview: string; widget: string }][] = [
      ['every component operational', 'operational', 0, { overview: 'Operational', widget: 'ok' }],
      ['a component degraded', 'degraded_performance', 0, { overview: 'Degraded', widget: 'incident' }],
      ['a component partly out', 'partial_outage', 0, { overview: 'Outage', widget: 'outage' }],
      ['a component under maintenance', 'under_maintenance', 0, { overview: 'Maintenance', widget: 'maintenance' }],
      ['read last 6 minutes ago, a component out', 'major_outage', 6 * MINUTE_MS, { overview: 'Unknown', widget: 'unknown' }],
    ];
    for (const [story, status, readAgoMs, expected] of cases) {
      await pageReads([componentState('a', status, { name: 'API' }), componentState('w', 'operational', { name: 'Website' })], readAgoMs);
      expect([story, await faces()]).toEqual([story, expected]);
    }
  });

  it('counts two components of one name as the worse, and a group by its children, on both faces', async () => {
    await pageReads([
      componentState('g1', 'major_outage', { name: 'Europe', isGroup: true }),
      componentState('a1', 'major_outage', { name: 'API', groupId: 'g1' }),
      componentState('g2', 'operational', { name: 'America', isGroup: true }),
      componentState('a2', 'operational', { name: 'API', groupId: 'g2' }),
    ]);
    expect(await faces()).toEqual({ overview: 'Outage', widget: 'outage' });
    const widget = JSON.parse(await get(`/widget.json?source=${world.sourceId}`));
    expect(widget.services).toEqual([{ name: 'API', state: 'outage' }]);

    // A group row says outage while its children are fine: the children are what count.
    await pageReads([
      componentState('g1', 'major_outage', { name: 'Europe', isGroup: true }),
      componentState('a1', 'operational', { name: 'API', groupId: 'g1' }),
    ]);
    expect(await faces()).toEqual({ overview: 'Operational', widget: 'ok' });
  });
});
