/** The widget's data from plain incidents: states worst first, per service, the filter, staleness, stable output. */
import { describe, expect, it } from 'vitest';
import {
  buildWidgetState,
  incidentState,
  SERVICE_STATE_WORDS,
  serviceStatesNow,
  WIDGET_SERVICES_MAX,
  WIDGET_TITLE_MAX_CHARS,
  type WidgetStateInput,
} from '../../src/core/widget-state.ts';
import { one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

const NOW = Date.UTC(2026, 9, 1, 15, 0, 0);
const MINUTE = 60_000;

const incident = (id: number, overrides: Partial<RawIncident>) =>
  one(rawIncident({ id, title: `Incident ${id}`, date_updated: '2026-10-01T05:56:59-07:00', ...overrides }));

const input = (overrides: Partial<WidgetStateInput> = {}): WidgetStateInput => ({
  ongoing: [],
  latest: null,
  lastSuccessAt: NOW - MINUTE,
  now: NOW,
  staleAfterMs: 5 * MINUTE,
  baseUrl: 'https://status.example.com',
  ...overrides,
});

const outage = incident(1, { type: 'outage', services: ['Files', 'Messaging'], date_updated: '2026-10-01T06:00:00-07:00' });
const files = incident(2, { type: 'incident', services: ['Files'], date_updated: '2026-10-01T07:00:00-07:00' });
const notice = incident(3, { type: 'notice', services: ['Search'] });
const planned = incident(4, { type: 'notice', status: 'scheduled', services: ['Huddles'] });
const nameless = incident(5, { type: 'incident', services: [] });

describe('incidentState', () => {
  it('names the documented types, calls planned windows maintenance, and shows anything else as a notice', () => {
    expect(incidentState({ type: 'outage', status: 'active' })).toBe('outage');
    expect(incidentState({ type: 'incident', status: 'active' })).toBe('incident');
    expect(incidentState({ type: 'notice', status: 'active' })).toBe('notice');
    expect(incidentState({ type: 'outage', status: 'scheduled' })).toBe('maintenance');
    expect(incidentState({ type: 'maintenance', status: 'active' })).toBe('maintenance');
    expect(incidentState({ type: 'degradation', status: 'active' })).toBe('notice');
  });
});

describe('buildWidgetState', () => {
  it('shows a name never seen as unknown, overall too unless a known service asked for is worse off', () => {
    const alone = buildWidgetState(input({ ongoing: [outage], services: ['Nope'], unknownServices: ['Nope'] }));
    expect(alone.state).toBe('unknown');
    expect(alone.services).toEqual([{ name: 'Nope', state: 'unknown' }]);
    const withQuiet = buildWidgetState(input({ ongoing: [outage], services: ['Search', 'Nope'], unknownServices: ['Nope'] }));
    expect(withQuiet.state).toBe('unknown');
    const withTrouble = buildWidgetState(input({ ongoing: [outage], services: ['Nope', 'Files'], unknownServices: ['Nope'] }));
    expect(withTrouble.state).toBe('outage');
    expect(withTrouble.services).toEqual([
      { name: 'Nope', state: 'unknown' },
      { name: 'Files', state: 'outage' },
    ]);
  });

  it('is ok with no incidents going on, dated by the latest update the archive holds', () => {
    const latest = incident(9, { status: 'resolved', date_updated: '2026-09-30T10:00:00-07:00' });
    expect(buildWidgetState(input({ latest }))).toEqual({
      state: 'ok',
      stale: false,
      reads_failing: false,
      last_read_at: '2026-10-01T14:59:00.000Z',
      unknown_since: null,
      last_known_state: null,
      updated_at: '2026-09-30T17:00:00.000Z',
      url: 'https://status.example.com/',
      services: [],
      incidents: [],
    });
    expect(buildWidgetState(input()).updated_at).toBeNull();
  });

  it('lists every ongoing incident worst first, and each affected service at its worst', () => {
    const widget = buildWidgetState(input({ ongoing: [planned, notice, nameless, files, outage] }));
    expect(widget.state).toBe('outage');
    expect(widget.incidents.map((i) => [i.id, i.state])).toEqual([
      ['1', 'outage'],
      ['2', 'incident'], // before 5: more services, then the newer update (mirror's compareUrgency)
      ['5', 'incident'],
      ['3', 'notice'],
      ['4', 'maintenance'],
    ]);
    expect(widget.services).toEqual([
      { name: 'Files', state: 'outage' },
      { name: 'Huddles', state: 'maintenance' },
      { name: 'Messaging', state: 'outage' },
      { name: 'Search', state: 'notice' },
    ]);
    expect(widget.incidents[1]).toEqual({
      id: '2',
      title: 'Incident 2',
      type: 'incident',
      status: 'active',
      state: 'incident',
      services: ['Files'],
      updated_at: '2026-10-01T14:00:00.000Z',
      url: 'https://status.example.com/incidents/2',
    });
    // The newest update of what is shown, even with no `latest` passed.
    expect(widget.updated_at).toBe('2026-10-01T14:00:00.000Z');
  });

  it('with a filter, covers only incidents naming a service asked for, and lists the services in the order asked', () => {
    const widget = buildWidgetState(input({ ongoing: [outage, files, notice, nameless], services: ['Search', 'Messaging', 'Canvases'] }));
    expect(widget.state).toBe('outage');
    expect(widget.services).toEqual([
      { name: 'Search', state: 'notice' },
      { name: 'Messaging', state: 'outage' },
      { name: 'Canvases', state: 'ok' },
    ]);
    // The Files-only incident and the one naming no service are not about these services.
    expect(widget.incidents.map((i) => i.id)).toEqual(['1', '3']);

    const quiet = buildWidgetState(input({ ongoing: [outage, nameless], services: ['Canvases'] }));
    expect(quiet).toMatchObject({ state: 'ok', services: [{ name: 'Canvases', state: 'ok' }], incidents: [] });
  });

  it('counts an incident naming no service without a filter, but lists no service for it', () => {
    const widget = buildWidgetState(input({ ongoing: [nameless] }));
    expect(widget).toMatchObject({ state: 'incident', services: [], incidents: [{ id: '5', services: [] }] });
  });

  it('dedupes the filter and cuts it at WIDGET_SERVICES_MAX', () => {
    const asked = ['Files', 'Files', ...Array.from({ length: 30 }, (_, i) => `Service ${i}`)];
    const widget = buildWidgetState(input({ services: asked }));
    expect(widget.services).toHaveLength(WIDGET_SERVICES_MAX);
    expect(widget.services.filter((s) => s.name === 'Files')).toHaveLength(1);
  });

  it('is stale when the feed was never read, or not within staleAfterMs', () => {
    expect(buildWidgetState(input({ lastSuccessAt: null })).stale).toBe(true);
    expect(buildWidgetState(input({ lastSuccessAt: NOW - 5 * MINUTE })).stale).toBe(true);
    expect(buildWidgetState(input({ lastSuccessAt: NOW - 5 * MINUTE + 1 })).stale).toBe(false);
  });

  it('while the latest reads fail but the last good one is recent, keeps the state and says it is as of that read', () => {
    const widget = buildWidgetState(input({ ongoing: [files], consecutiveFailures: 2, lastSuccessAt: NOW - 2 * MINUTE }));
    expect(widget).toMatchObject({ state: 'incident', stale: false, reads_failing: true, last_read_at: '2026-10-01T14:58:00.000Z' });
    // Past the limit it is stale instead: unknown, and no longer "as of".
    const blind = buildWidgetState(input({ ongoing: [files], consecutiveFailures: 9, lastSuccessAt: NOW - 6 * MINUTE }));
    expect(blind).toMatchObject({ state: 'unknown', stale: true, reads_failing: false, last_read_at: '2026-10-01T14:54:00.000Z' });
  });

  it('gives each service its state now from the incidents naming it, in the words every face uses', () => {
    const names = ['Files', 'Messaging', 'Search', 'Huddles', 'Login/SSO'];
    const now = serviceStatesNow([files, notice, planned, outage, nameless], names, true);
    expect(names.map((name) => SERVICE_STATE_WORDS[now.get(name)!])).toEqual(['Outage', 'Outage', 'Operational', 'Maintenance', 'Operational']);
    expect(SERVICE_STATE_WORDS[serviceStatesNow([files], ['Files'], true).get('Files')!]).toBe('Degraded');
    // Blind: nothing is claimed, not even "Operational".
    expect([...serviceStatesNow([files], names, false).values()].every((state) => state === 'unknown')).toBe(true);
  });

  it('puts titles on one line and builds links from the base URL, with or without a path', () => {
    const hostile = incident(1580, { title: 'Files\n\tfail \u0000 to <b>upload</b>', services: ['Files'] });
    const widget = buildWidgetState(input({ ongoing: [hostile], baseUrl: 'https://example.com/status/' }));
    expect(widget.url).toBe('https://example.com/status/');
    expect(widget.incidents[0]).toMatchObject({ title: 'Files fail to <b>upload</b>', url: 'https://example.com/status/incidents/1580' });
  });

  it('gives the same JSON whatever order the store returns incidents in', () => {
    const a = JSON.stringify(buildWidgetState(input({ ongoing: [outage, files, notice, planned, nameless] })));
    const b = JSON.stringify(buildWidgetState(input({ ongoing: [nameless, planned, notice, files, outage] })));
    expect(a).toBe(b);
  });
});

describe('widget titles', () => {
  it('cuts a huge title to WIDGET_TITLE_MAX_CHARS characters with an ellipsis, never splitting an emoji', () => {
    const huge = incident(9, { title: `Outage ${'\u{1F525}'.repeat(500_000)}` }); // 1 MB of UTF-16
    const [shown] = buildWidgetState(input({ ongoing: [huge] })).incidents;
    const chars = Array.from(shown!.title);
    expect(chars).toHaveLength(WIDGET_TITLE_MAX_CHARS);
    expect(chars.at(-1)).toBe('…');
    expect(chars.slice(0, -1).join('')).toBe(`Outage ${'\u{1F525}'.repeat(WIDGET_TITLE_MAX_CHARS - 8)}`);
    expect(shown!.title).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no lone high surrogate
  });

  it('leaves a title of exactly the limit alone', () => {
    const title = 'x'.repeat(WIDGET_TITLE_MAX_CHARS);
    expect(buildWidgetState(input({ ongoing: [incident(9, { title })] })).incidents[0]?.title).toBe(title);
  });
});
