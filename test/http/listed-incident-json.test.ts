/**
 * An incident's JSON is built by the store's SQL (both projects: SQLite on Node, D1 in workerd),
 * listed by `GET /api/incidents` and alone by `GET /api/incidents/:id`. Over awkward incidents,
 * each route must give the scenario's values, and every listed item must be the single incident's
 * fields, in its order, with `latest_note` in place of `notes`.
 */
import { describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { seedArchive } from '../helpers/seed-archive.ts';
import { useSourceFaceWorld } from '../helpers/source-face-world.ts';

const AWKWARD_TEXT = 'Ünïcødé 🚨 "quoted" \\back\\slash\u0001\u001f\n\ttab \u2028 lone \ud800 end </script>';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a listed incident and the same incident on its own', () => {
  const world = useSourceFaceWorld({ pageName: 'Acme', vendorIncidents: [] });
  const awkward = [
    rawIncident({
      id: 1,
      title: AWKWARD_TEXT,
      status: 'resolved',
      url: 'https://example.com/a?b="c"&d=<e>',
      services: ['Files', 'Messaging "quoted"'],
      date_created: '2026-03-01T10:00:00.999Z',
      date_updated: '2026-03-01T10:00:02.499Z',
      notes: [
        { body: '<p>First &amp; <strong>bold</strong></p>', date_created: '2026-03-01T10:00:00.999Z' },
        { body: `<p onclick="x()">${AWKWARD_TEXT}&nbsp;<script>alert("x")</script></p>`, date_created: '2026-03-01T10:00:02.499Z' },
      ],
    }),
    rawIncident({ id: 2, status: 'active', notes: [], date_created: '2026-04-01T00:00:00.001+14:00', date_updated: '2026-04-01T00:00:00.500Z' }),
    rawIncident({
      id: 3,
      status: 'resolved',
      date_created: '2000-01-01T00:00:00.000Z',
      date_updated: '2000-01-01T23:59:59.999Z',
      notes: [{ body: 'plain', date_created: '2000-01-01T00:00:00.000Z' }],
    }),
    // After 9999-12-31 in UTC (a four-digit year west of it): a six-digit year, signed, as toISOString writes it.
    rawIncident({ id: 5, status: 'resolved', date_created: '9999-12-31T20:00:00-14:00', date_updated: '9999-12-31T23:00:00-14:00', notes: [] }),
    // Resolved before it was created, by half a second and more: Math.round takes halves up, -1.5 to -1.
    rawIncident({ id: 6, status: 'resolved', date_created: '2026-05-01T00:00:01.500Z', date_updated: '2026-05-01T00:00:00.000Z', notes: [] }),
  ];

  it("gives each awkward incident's values, in the API's order, alone and listed, on the main feed and a source", async () => {
    await seedArchive(world.service.store, awkward, { now: world.nowMs });
    // The simulated page's story opens an incident of its own: a source's incident, `acme:...`.
    expect((await fetch(`${world.page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
    expect((await world.service.admin('POST', `/api/admin/poll?source=${world.sourceId}`)).body.sources[0].outcome).toBe('ok');

    const seen = new Date(world.nowMs).toISOString();
    // A lone surrogate has no UTF-8: it is read as one replacement character, the rest as sent.
    const [before, after] = AWKWARD_TEXT.split('\ud800');
    const awkwardRead = expect.stringMatching(new RegExp(`^${escapeRegExp(before!)}\ufffd${escapeRegExp(after!)}$`));
    const defaults = { type: 'incident', url: 'https://slack-status.com/2026-10/6c28dfb7b670dc02', services: ['Messaging'], source: 'main' };
    const seenAt = { first_seen_at: seen, last_seen_at: seen, revision: 1 };
    const expected: Record<string, Record<string, unknown>> = {
      '1': {
        id: '1',
        title: awkwardRead,
        type: 'incident',
        status: 'resolved',
        url: 'https://example.com/a?b="c"&d=<e>',
        services: ['Files', 'Messaging "quoted"'],
        date_created: '2026-03-01T10:00:00.999Z',
        date_updated: '2026-03-01T10:00:02.499Z',
        source: 'main',
        created_at: '2026-03-01T10:00:00.999Z',
        updated_at: '2026-03-01T10:00:02.499Z',
        // Resolved when first seen: at its last note, 1.5 s after it began, rounded up.
        resolved_at: '2026-03-01T10:00:02.499Z',
        duration_seconds: 2,
        ...seenAt,
        note_count: 2,
        notes: [
          {
            key: `${Date.parse('2026-03-01T10:00:00.999Z')}-0`,
            date_created: '2026-03-01T10:00:00.999Z',
            created_at: '2026-03-01T10:00:00.999Z',
            body: '<p>First &amp; <strong>bold</strong></p>',
            text: 'First & bold',
          },
          {
            key: `${Date.parse('2026-03-01T10:00:02.499Z')}-0`,
            date_created: '2026-03-01T10:00:02.499Z',
            created_at: '2026-03-01T10:00:02.499Z',
            body: expect.stringMatching(
              new RegExp(`^<p onclick="x\\(\\)">${escapeRegExp(before!)}\ufffd${escapeRegExp(after!)}&nbsp;<script>alert\\("x"\\)</script></p>$`),
            ),
            // Tags dropped (a script's words kept, as text), the tab after the line break too.
            text: expect.stringMatching(
              new RegExp(`^${escapeRegExp('Ünïcødé 🚨 "quoted" \\back\\slash\u0001\u001f\ntab \u2028 lone ')}\ufffd end alert\\("x"\\)$`),
            ),
          },
        ],
      },
      '2': {
        id: '2',
        title: 'Free Plan Customers Are Experiencing Message Failures',
        ...defaults,
        status: 'active',
        date_created: '2026-04-01T00:00:00.001+14:00',
        date_updated: '2026-04-01T00:00:00.500Z',
        created_at: '2026-03-31T10:00:00.001Z',
        updated_at: '2026-04-01T00:00:00.500Z',
        resolved_at: null,
        duration_seconds: null,
        ...seenAt,
        note_count: 0,
        notes: [],
      },
      '3': {
        id: '3',
        title: 'Free Plan Customers Are Experiencing Message Failures',
        ...defaults,
        status: 'resolved',
        date_created: '2000-01-01T00:00:00.000Z',
        date_updated: '2000-01-01T23:59:59.999Z',
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T23:59:59.999Z',
        resolved_at: '2000-01-01T00:00:00.000Z',
        duration_seconds: 0,
        ...seenAt,
        note_count: 1,
        notes: [
          {
            key: `${Date.parse('2000-01-01T00:00:00.000Z')}-0`,
            date_created: '2000-01-01T00:00:00.000Z',
            created_at: '2000-01-01T00:00:00.000Z',
            body: 'plain',
            text: 'plain',
          },
        ],
      },
      // After 9999-12-31 in UTC: a six-digit year, signed, as toISOString writes it; resolved when last updated.
      '5': {
        id: '5',
        title: 'Free Plan Customers Are Experiencing Message Failures',
        ...defaults,
        status: 'resolved',
        date_created: '9999-12-31T20:00:00-14:00',
        date_updated: '9999-12-31T23:00:00-14:00',
        created_at: '+010000-01-01T10:00:00.000Z',
        updated_at: '+010000-01-01T13:00:00.000Z',
        resolved_at: '+010000-01-01T13:00:00.000Z',
        duration_seconds: 10_800,
        ...seenAt,
        note_count: 0,
        notes: [],
      },
      // Resolved (when last updated) 1.5 s before it was created: Math.round takes halves up, -1.5 to -1.
      '6': {
        id: '6',
        title: 'Free Plan Customers Are Experiencing Message Failures',
        ...defaults,
        status: 'resolved',
        date_created: '2026-05-01T00:00:01.500Z',
        date_updated: '2026-05-01T00:00:00.000Z',
        created_at: '2026-05-01T00:00:01.500Z',
        updated_at: '2026-05-01T00:00:00.000Z',
        resolved_at: '2026-05-01T00:00:00.000Z',
        duration_seconds: -1,
        ...seenAt,
        note_count: 0,
        notes: [],
      },
    };
    const fieldOrder = [
      'id',
      'title',
      'type',
      'status',
      'url',
      'services',
      'date_created',
      'date_updated',
      'source',
      'created_at',
      'updated_at',
      'resolved_at',
      'duration_seconds',
      'first_seen_at',
      'last_seen_at',
      'revision',
      'note_count',
    ];
    const noteOrder = ['key', 'date_created', 'created_at', 'body', 'text'];

    const list = JSON.parse((await world.get('/api/incidents?limit=1000')).text);
    expect(list.incidents.length).toBeGreaterThanOrEqual(7);
    expect(list.incidents.some((item: { source: string }) => item.source === world.sourceId)).toBe(true);
    for (const item of list.incidents) {
      const single = JSON.parse((await world.get(`/api/incidents/${encodeURIComponent(item.id)}`)).text).incident;
      expect(Object.keys(single)).toEqual([...fieldOrder, 'notes']);
      expect(Object.keys(item)).toEqual([...fieldOrder, 'latest_note']);
      for (const note of single.notes) expect(Object.keys(note)).toEqual(noteOrder);
      if (item.latest_note) expect(Object.keys(item.latest_note)).toEqual(noteOrder);
      // The scenario's values, alone and listed.
      const { notes, ...fields } = expected[item.id] ?? single;
      if (item.id in expected) expect(single).toEqual(expected[item.id]);
      else expect(item.id.startsWith(`${world.sourceId}:`)).toBe(true);
      expect(item).toEqual({ ...fields, latest_note: (notes as unknown[]).at(-1) ?? null });
    }
    expect(Object.keys(expected).filter((id) => !list.incidents.some((item: { id: string }) => item.id === id))).toEqual([]);
  });

  it('opens with the incident as its events summarise it to subscribers, in the same order and values', async () => {
    await seedArchive(world.service.store, awkward, { now: world.nowMs });
    for (const id of ['1', '2', '3']) {
      const { incident, events } = JSON.parse((await world.get(`/api/incidents/${id}`)).text);
      const summaries = events.map((event: { data: { incident?: Record<string, unknown> } }) => event.data.incident).filter(Boolean);
      expect(summaries.length).toBeGreaterThan(0);
      const summary = summaries.at(-1) as Record<string, unknown>;
      const keys = Object.keys(summary);
      // A subscriber's webhook and the API name the same incident in the same words, in the same order.
      expect(Object.keys(incident).slice(0, keys.length)).toEqual(keys);
      expect(Object.fromEntries(keys.map((key) => [key, incident[key]]))).toEqual(summary);
    }
  });
});
