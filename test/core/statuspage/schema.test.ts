import { describe, expect, it } from 'vitest';
import {
  NOT_STATUSPAGE_MESSAGE,
  NotStatuspageError,
  parseIncidents,
  parseMaintenances,
  parseSummary,
  STATUSPAGE_INCIDENTS_MAX,
} from '../../../src/core/statuspage/schema.ts';
import { bodyText, component, incident, incidentsText, maintenancesText, PAGE, summaryText, update } from '../../fixtures/statuspage-builders.ts';

const investigating = update({ id: 'u1', status: 'investigating', body: 'We are investigating.', created_at: '2026-01-06T05:26:39.123Z' });

describe('Statuspage bodies that are not the format', () => {
  it.each([
    ['an empty body', '', 'the body is empty'],
    ['a blank body', ' \n', 'the body is empty'],
    ['an HTML page', '<!doctype html><html><body>Status</body></html>', 'the body is HTML, not JSON'],
    ['a cut body', summaryText({}).slice(0, 40), 'the body is not JSON'],
    ['an array', '[]', 'got an array'],
    ['another JSON API', '{"error":"rate_limited"}', 'page, components, incidents missing'],
    ['a page without a name', bodyText({ page: { id: 'abc' }, components: [], incidents: [] }), 'page:'],
  ])('refuses %s with a clear error', (_label, text, detail) => {
    expect(() => parseSummary(text)).toThrow(NotStatuspageError);
    expect(() => parseSummary(text)).toThrow(NOT_STATUSPAGE_MESSAGE);
    expect(() => parseSummary(text)).toThrow(detail);
  });

  it('refuses a summary body given as the incidents list, and a list that is not a list', () => {
    expect(() => parseIncidents(bodyText({ page: PAGE, components: [] }))).toThrow('incidents missing');
    expect(() => parseIncidents(bodyText({ page: PAGE, incidents: {} }))).toThrow('incidents is not a list');
  });
});

describe('parseSummary', () => {
  it('reads a page with nothing open as empty lists, and the headline indicator', () => {
    const summary = parseSummary(summaryText({ components: [component({ id: 'c1', name: 'API', status: 'operational' })] }));
    expect(summary.page.name).toBe('Acme Cloud');
    expect(summary.incidents.items).toEqual([]);
    expect(summary.status.indicator).toEqual({ value: 'none', vendor: 'none' });
    expect(summary.components.items[0]).toMatchObject({ id: 'c1', name: 'API', status: { value: 'operational' } });
  });

  it('makes a lone surrogate one U+FFFD, and leaves out whole an emoji a length cap would cut in two', () => {
    // Names are kept to 500 characters: the 500th here is the first half of an emoji's pair.
    const cut = `${'a'.repeat(499)}🚨`;
    const summary = parseSummary(
      summaryText({
        components: [component({ id: 'c1', name: 'API \ud800', status: 'operational' }), component({ id: 'c2', name: cut, status: 'operational' })],
      }),
    );
    expect(summary.components.items.map((c) => c.name)).toEqual(['API \ufffd', 'a'.repeat(499)]);
  });

  it('reads an incident.io-compatible summary: no scheduled_maintenances key, no optional fields, ULIDs, no fractions', () => {
    const text = bodyText({
      page: { id: '01JMYKB5GPXZ3Y8SRM1Y8A3ZQK', name: 'OpenAI', url: 'https://status.openai.com/' },
      components: [
        {
          id: '01JMXBRMFE6N2NNT7DG6XZQ6PW',
          name: 'APIs',
          status: 'operational',
          position: 1,
          created_at: '2025-02-25T00:00:00Z',
          updated_at: '2026-09-29T18:00:00Z',
          page_id: 'x',
        },
      ],
      incidents: [
        {
          id: '01K6BZ6NVBJ6BBG4QGEV9JAF7B',
          name: 'Elevated errors',
          status: 'identified',
          impact: 'none',
          created_at: '2026-09-29T17:41:07Z',
          updated_at: '2026-09-29T18:02:11Z',
          page_id: 'x',
          incident_updates: [
            {
              id: '01K6BZ6NVC5CJ9N9ZW7AKM3S3F',
              incident_id: 'x',
              status: 'identified',
              body: 'See [help](mailto:a@b.c "Help")',
              created_at: '2026-09-29T17:41:07Z',
              updated_at: '2026-09-29T17:41:07Z',
              display_at: '2026-09-29T17:41:07Z',
            },
          ],
        },
      ],
      status: { indicator: 'minor', description: 'Partial System Degradation' },
    });
    const summary = parseSummary(text);
    expect(summary.scheduledMaintenances).toEqual({ items: [], skipped: 0 });
    const [only] = summary.incidents.items;
    expect(only).toMatchObject({ id: '01K6BZ6NVBJ6BBG4QGEV9JAF7B', impact: { value: 'none' }, shortlink: '', started_at: null, resolved_at: null });
    expect(only?.created_at.ms).toBe(Date.UTC(2026, 8, 29, 17, 41, 7));
    expect(only?.incident_updates.items[0]?.affected_components.items).toEqual([]);
  });

  it('compares offsets as instants: -08:00 in February and -07:00 in August name the right UTC times', () => {
    const text = maintenancesText([
      incident({
        id: 'm1',
        name: 'Database upgrade',
        status: 'completed',
        impact: 'maintenance',
        created_at: '2022-02-10T13:37:00.000-08:00',
        updated_at: '2022-08-10T13:37:00.000-07:00',
        scheduled_for: '2022-02-15T01:00:00.000-08:00',
        scheduled_until: '2022-02-15T03:00:00.000-08:00',
        updates: [update({ id: 'u1', status: 'completed', body: 'Done.\r\n\r\n(｡◕‿◕｡)', created_at: '2022-08-10T13:37:00.000-07:00' })],
      }),
    ]);
    const [m] = parseMaintenances(text).scheduledMaintenances.items;
    expect(m?.created_at.ms).toBe(Date.UTC(2022, 1, 10, 21, 37));
    expect(m?.updated_at.ms).toBe(Date.UTC(2022, 7, 10, 20, 37));
    expect(m?.scheduled_for?.ms).toBe(Date.UTC(2022, 1, 15, 9, 0));
    expect(m?.incident_updates.items[0]?.body).toBe('Done.\r\n\r\n(｡◕‿◕｡)');
  });

  it('keeps a 19-digit tweet_id exact, as text', () => {
    const text = incidentsText([
      incident({
        id: 'i1',
        name: 'Degraded pipelines',
        status: 'monitoring',
        created_at: '2024-02-22T14:40:00.000Z',
        updated_at: '2024-02-22T17:20:00.000Z',
        updates: [update({ id: 'u1', status: 'monitoring', body: 'A fix is out.', created_at: '2024-02-22T17:20:00.000Z', tweetId: '1760717163785245123' })],
      }),
    ]);
    expect(text).toContain('"tweet_id":1760717163785245123');
    expect(parseIncidents(text).incidents.items[0]?.incident_updates.items[0]?.tweet_id).toBe('1760717163785245123');
  });

  it('keeps status and impact words it does not know as "unknown", with the word beside', () => {
    const text = incidentsText([
      incident({
        id: 'i1',
        name: 'Odd',
        status: 'Escalated',
        impact: 'catastrophic',
        created_at: '2026-01-06T05:00:00Z',
        updated_at: '2026-01-06T05:00:00Z',
        updates: [],
      }),
    ]);
    const [only] = parseIncidents(text).incidents.items;
    expect(only?.status).toEqual({ value: 'unknown', vendor: 'escalated' });
    expect(only?.impact).toEqual({ value: 'unknown', vendor: 'catastrophic' });
  });

  it('tolerates a dangling group_id, a group listed after its children, and reminder_intervals of any type', () => {
    const text = summaryText({
      components: [
        component({ id: 'c1', name: 'Global', status: 'operational', group_id: 'g1' }),
        component({ id: 'c2', name: 'South Korea', status: 'partial_outage', group_id: 'gone' }),
        component({ id: 'g1', name: 'Droplets', status: 'operational', group: true, children: ['c1'] }),
      ],
      incidents: [
        {
          ...incident({
            id: 'i1',
            name: 'Voice',
            status: 'investigating',
            created_at: '2026-01-06T05:00:00Z',
            updated_at: '2026-01-06T05:00:00Z',
            updates: [investigating],
          }),
          reminder_intervals: '[]',
        },
      ],
    });
    const summary = parseSummary(text);
    expect(summary.components.items.map((c) => [c.id, c.group_id, c.group])).toEqual([
      ['c1', 'g1', false],
      ['c2', 'gone', false],
      ['g1', null, true],
    ]);
    expect(summary.components.items[2]?.components).toEqual(['c1']);
    expect(summary.incidents.items).toHaveLength(1);
  });

  it('skips an entry without its required fields and keeps the rest, counting what it skipped', () => {
    const good = incident({
      id: 'i1',
      name: 'Good',
      status: 'investigating',
      created_at: '2026-01-06T05:00:00Z',
      updated_at: '2026-01-06T05:00:00Z',
      updates: [investigating],
    });
    const text = summaryText({
      incidents: [good, { ...good, id: 'i2', created_at: 'yesterday' }, { ...good, id: 'i3', name: undefined }, 'junk' as unknown as Record<string, unknown>],
      components: [component({ id: 'c1', name: 'API', status: 'operational' }), { id: 'c2' }],
    });
    const summary = parseSummary(text);
    expect(summary.incidents.items.map((i) => i.id)).toEqual(['i1']);
    expect(summary.incidents.skipped).toBe(3);
    expect(summary.components.skipped).toBe(1);
  });

  it('reads at most STATUSPAGE_INCIDENTS_MAX entries of a list, counting the rest as skipped', () => {
    const one = (n: number) =>
      incident({ id: `i${n}`, name: 'Flood', status: 'resolved', created_at: '2026-01-06T05:00:00Z', updated_at: '2026-01-06T05:00:00Z', updates: [] });
    const parsed = parseIncidents(incidentsText(Array.from({ length: STATUSPAGE_INCIDENTS_MAX + 5 }, (_, n) => one(n))));
    expect(parsed.incidents.items).toHaveLength(STATUSPAGE_INCIDENTS_MAX);
    expect(parsed.incidents.skipped).toBe(5);
  });

  it('keeps a null display_at and an update edited in place (later updated_at) as given', () => {
    const text = incidentsText([
      incident({
        id: 'i1',
        name: 'Postmortem posted',
        status: 'postmortem',
        impact: 'none',
        created_at: '2023-07-06T03:00:00.000Z',
        updated_at: '2023-07-14T10:00:04.000Z',
        updates: [
          update({
            id: 'u2',
            status: 'postmortem',
            body: '### **SUMMARY**',
            created_at: '2023-07-14T10:00:00.000Z',
            updated_at: '2023-07-14T10:00:04.000Z',
            display_at: null,
          }),
          update({
            id: 'u1',
            status: 'resolved',
            body: 'Fixed.<br />Root cause: a bad deploy.',
            created_at: '2023-07-06T05:00:00.000Z',
            updated_at: '2023-07-07T09:00:00.000Z',
          }),
        ],
      }),
    ]);
    const [only] = parseIncidents(text).incidents.items;
    expect(only?.status).toEqual({ value: 'postmortem', vendor: 'postmortem' });
    const [newest, oldest] = only?.incident_updates.items ?? [];
    expect(newest?.display_at).toBeNull();
    expect(oldest?.updated_at?.ms).toBe(Date.UTC(2023, 6, 7, 9));
  });
});
