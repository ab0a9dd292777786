/**
 * A listed incident's JSON is built by the store's SQL (both projects: SQLite on Node, D1 in
 * workerd), a single incident's by toApiIncident: over awkward incidents, every item of
 * `GET /api/incidents` must be the single incident's fields, in its order and with its values, with
 * `note_count` and `latest_note` in place of `notes`.
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

  it('has the same fields, in the same order, with the same values, on the main feed and a source', async () => {
    await seedArchive(world.service.store, awkward, { now: world.nowMs });
    // The simulated page's story opens an incident of its own: a source's incident, `acme:...`.
    expect((await fetch(`${world.page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
    expect((await world.service.admin('POST', `/api/admin/poll?source=${world.sourceId}`)).body.sources[0].outcome).toBe('ok');

    const list = JSON.parse((await world.get('/api/incidents?limit=1000')).text);
    expect(list.incidents.length).toBeGreaterThanOrEqual(7);
    expect(list.incidents.some((item: { source: string }) => item.source === world.sourceId)).toBe(true);
    for (const item of list.incidents) {
      const single = JSON.parse((await world.get(`/api/incidents/${encodeURIComponent(item.id)}`)).text).incident;
      const { notes, ...fields } = single;
      const expected = { ...fields, note_count: notes.length, latest_note: notes.at(-1) ?? null };
      expect(item).toEqual(expected);
      expect(Object.keys(item)).toEqual(Object.keys(expected));
      if (item.latest_note) expect(Object.keys(item.latest_note)).toEqual(Object.keys(expected.latest_note));
    }
    const byId = new Map(list.incidents.map((item: { id: string }) => [item.id, item]));
    // The scenario's own values, beside the agreement: what each awkward incident must read as.
    // A lone surrogate has no UTF-8: it reads back as replacement characters, the rest as sent.
    const [before, after] = AWKWARD_TEXT.split('\ud800');
    expect(byId.get('1')).toMatchObject({ created_at: '2026-03-01T10:00:00.999Z', note_count: 2 });
    expect((byId.get('1') as { title: string }).title).toMatch(new RegExp(`^${escapeRegExp(before!)}\ufffd+${escapeRegExp(after!)}$`));
    expect(byId.get('2')).toMatchObject({ created_at: '2026-03-31T10:00:00.001Z', resolved_at: null, duration_seconds: null, latest_note: null });
    expect(byId.get('3')).toMatchObject({ created_at: '2000-01-01T00:00:00.000Z' });
    expect(byId.get('5')).toMatchObject({ created_at: '+010000-01-01T10:00:00.000Z' });
  });
});
