import { describe, expect, it } from 'vitest';
import { createMemoizedIncidentParser, NotAFeedError, parseCurrentV1, parseCurrentV2, parseHistory, parseIncidentList } from '../../src/core/feed-schema.ts';
import { one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

describe('feed parsing', () => {
  it('reads the raw wire format: \\/ escapes, \\u escapes, compact, 2026 key order', () => {
    const wire =
      '{"status":"active","date_created":"2026-10-01T05:39:35-07:00","date_updated":"2026-10-01T07:31:24-07:00","active_incidents":[{"id":1579,"title":"Apps\\/Integrations down","type":"incident","status":"active","url":"https:\\/\\/slack-status.com\\/2026-10\\/6c28dfb7b670dc02","date_created":"2026-10-01T05:39:35-07:00","date_updated":"2026-10-01T07:31:24-07:00","notes":[{"body":"<p>We\\u2019ve found it<\\/p>","date_created":"2026-10-01T05:39:35-07:00"}],"services":["Apps\\/Integrations\\/APIs"]}]}';
    const [incident] = parseCurrentV2(JSON.parse(wire)).incidents;
    expect(incident?.url).toBe('https://slack-status.com/2026-10/6c28dfb7b670dc02');
    expect(incident?.services).toEqual(['Apps/Integrations/APIs']);
    expect(incident?.notes[0]?.body).toBe('<p>We’ve found it</p>');
  });

  it('makes a lone surrogate one U+FFFD in every text it keeps, which UTF-8 and so every store and face can then carry alike', () => {
    // JSON may escape half of a pair on its own; UTF-8 has no such character.
    const wire =
      '{"status":"active","active_incidents":[{"id":7,"title":"Lone \\ud800 half","type":"Inc\\udc00","status":"active","url":"https://x.test/\\ud83d","date_created":"2026-10-01T05:39:35-07:00","notes":[{"body":"<p>\\udfff</p>","date_created":"2026-10-01T05:39:35-07:00"}],"services":["Files \\ud800"]},{"id":8,"title":"A pair \\ud83d\\ude80 stays","status":"active","date_created":"2026-10-01T05:39:35-07:00"}]}';
    const [lone, pair] = parseCurrentV2(JSON.parse(wire)).incidents;
    expect(lone).toMatchObject({ title: 'Lone \ufffd half', type: 'inc\ufffd', url: 'https://x.test/\ufffd', services: ['Files \ufffd'] });
    expect(lone?.notes[0]?.body).toBe('<p>\ufffd</p>');
    expect(pair?.title).toBe('A pair 🚀 stays');
  });

  it('treats ids as numbers or strings alike (v2 sends 622, v1 sent "622")', () => {
    expect(one(rawIncident({ id: 622 })).id).toBe('622');
    expect(one(rawIncident({ id: '622' })).id).toBe('622');
    expect(one(rawIncident({ id: '0622' })).id).toBe('622');
  });

  it('sorts notes oldest first whichever order the feed used, with the same keys', () => {
    const oldestFirst = rawIncident();
    const newestFirst = rawIncident({ notes: [...oldestFirst.notes].reverse() });
    const a = one(oldestFirst);
    const b = one(newestFirst);
    expect(a.notes.map((n) => n.dateCreated.raw)).toEqual(['2026-10-01T05:39:35-07:00', '2026-10-01T05:56:59-07:00']);
    expect(b.notes).toEqual(a.notes);
  });

  it('gives notes that share a second distinct, order-stable keys', () => {
    const same = '2026-10-01T05:39:35-07:00';
    const raw = rawIncident({
      notes: [
        { body: 'first', date_created: same },
        { body: 'second', date_created: same },
      ],
    });
    const keys = one(raw).notes.map((n) => `${n.key}:${n.body}`);
    expect(new Set(keys).size).toBe(2);
    expect(one(raw).notes.map((n) => n.body)).toEqual(['first', 'second']);
  });

  it('accepts empty services, and statuses and types the docs do not list, lower-cased', () => {
    const incident = one(rawIncident({ services: [], status: 'Canceled', type: 'maintenance' }));
    expect(incident.services).toEqual([]);
    expect(incident.status).toBe('canceled');
    expect(incident.type).toBe('maintenance');
  });

  it('keeps both winter and summer offsets and the instants they mean', () => {
    const incident = one(rawIncident({ date_created: '2026-03-07T23:00:00-08:00', date_updated: '2026-03-08T04:00:00-07:00', notes: [] }));
    expect(incident.dateUpdated.ms - incident.dateCreated.ms).toBe(4 * 3600_000);
  });

  it('skips an incident it cannot read, says why, and keeps the rest', () => {
    const doc = parseHistory([rawIncident({ id: 1 }), { ...rawIncident({ id: 2 }), date_created: 'last tuesday' }, rawIncident({ id: 3 })]);
    expect(doc.incidents.map((i) => i.id)).toEqual(['1', '3']);
    expect(doc.problems).toHaveLength(1);
    expect(doc.problems[0]).toMatchObject({ index: 1, id: '2' });
    expect(doc.problems[0]?.message).toMatch(/date_created/);
  });

  it('refuses payloads that are not a feed at all', () => {
    expect(() => parseCurrentV2({ error: 'rate_limited' })).toThrow(NotAFeedError);
    expect(() => parseCurrentV2([])).toThrow(/expected an object with status and active_incidents/);
    expect(() => parseHistory({ status: 'ok' })).toThrow(/expected an array of incidents, got an object/);
    expect(() => parseCurrentV1('maintenance')).toThrow(NotAFeedError);
  });

  it('reads v1 current: a flat incident, the terse ok, and a resolved incident', () => {
    expect(parseCurrentV1(rawIncident({ id: '622' })).incidents[0]?.id).toBe('622');
    expect(parseCurrentV1({ status: 'ok', date_created: '2026-10-01T05:39:35-07:00', date_updated: '2026-10-01T05:39:35-07:00' }).incidents).toEqual([]);
    expect(parseCurrentV1(rawIncident({ status: 'resolved' })).incidents[0]?.status).toBe('resolved');
  });

  it('reads v2 current when all is well: empty active_incidents', () => {
    const doc = parseCurrentV2({ status: 'ok', date_created: '2026-09-12T04:04:17-07:00', date_updated: '2026-09-12T13:00:00-07:00', active_incidents: [] });
    expect(doc).toEqual({ incidents: [], problems: [] });
  });
});

describe('memoised incident parser', () => {
  it('gives what the plain parser gives, on every call, reusing unchanged entries', () => {
    const parse = createMemoizedIncidentParser();
    const bad = { ...rawIncident({ id: 2 }), date_created: 'soon' };
    const first = [rawIncident({ id: 1 }), bad, rawIncident({ id: 3 })];
    expect(parse(first)).toEqual(parseIncidentList(first));
    const second = [rawIncident({ id: 1 }), rawIncident({ id: 3, title: 'Changed' }), bad];
    const memo = parse(second);
    expect(memo).toEqual(parseIncidentList(second));
    expect(memo.problems[0]?.index).toBe(2);
    expect(parse(second).incidents[0]).toBe(memo.incidents[0]); // the same object: not parsed again
  });

  it('parses again when any field it reads changed, down to one note body', () => {
    const parse = createMemoizedIncidentParser();
    const base = rawIncident();
    parse([base]);
    const edited = { ...base, notes: [base.notes[0]!, { ...base.notes[1]!, body: base.notes[1]!.body.replace('is', 'was') }] };
    expect(parse([edited]).incidents[0]?.notes[1]?.body).toBe(edited.notes[1]!.body);
    const restamped = { ...edited, date_updated: '2026-10-01T06:00:00-07:00' };
    expect(parse([restamped]).incidents[0]?.dateUpdated.raw).toBe('2026-10-01T06:00:00-07:00');
    const extraField = { ...restamped, unknown_field: 'ignored' };
    expect(parse([extraField])).toEqual(parseIncidentList([extraField]));
  });

  it('says of each slice how many entries it validated: the changed, new and malformed ones, not those known from the last reading', () => {
    const parse = createMemoizedIncidentParser();
    const feed = [1, 2, 3, 4].map((id) => rawIncident({ id }));
    parse(feed);
    const session = parse.begin();
    // Entry 2 retitled, entry 5 new, one entry malformed; 1, 3 and 4 as the last reading had them.
    expect(session.add([feed[0], rawIncident({ id: 2, title: 'Retitled' }), feed[2]], 0)).toBe(1);
    expect(session.add([feed[3], rawIncident({ id: 5 }), { id: 6, date_created: 'soon' }], 3)).toBe(2);
    expect(session.finish().incidents.map((i) => i.id)).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('malformed vendor values make their entry a skipped, reported one', () => {
  const problemsOf = (overrides: Partial<RawIncident>) => {
    const doc = parseHistory([rawIncident({ id: 1 }), rawIncident({ id: 2, ...overrides }), rawIncident({ id: 3 })]);
    expect(doc.incidents.map((i) => i.id)).toEqual(['1', '3']); // the rest are kept, times unshifted
    expect(doc.incidents[0]?.dateCreated.ms).toBe(Date.UTC(2026, 9, 1, 12, 39, 35));
    return doc.problems;
  };

  it.each(['2026-10-01T05:39:35+99:99', '2026-10-01T05:39:35+2400', '2026-10-01T05:39:35-07:60'])('an impossible offset, %j', (time) => {
    expect(problemsOf({ date_updated: time })[0]?.message).toMatch(/offset.*at date_updated/s);
    expect(problemsOf({ notes: [{ body: 'x', date_created: time }] })).toHaveLength(1);
  });

  it.each(['0000-01-01T00:00:00-08:00', '0050-06-01T00:00:00-08:00', '1999-12-31T15:59:59-08:00'])('a year before the feed existed, %j', (time) => {
    expect(problemsOf({ date_created: time })[0]?.message).toMatch(/2000 or later.*at date_created/s);
  });

  it('still reads the first instant of 2000', () => {
    expect(one(rawIncident({ date_created: '2000-01-01T00:00:00Z' })).dateCreated.ms).toBe(Date.UTC(2000, 0, 1));
  });

  it('a numeric id longer than the 64 characters a string id may have, as digits or as a JSON number', () => {
    const digits = '9'.repeat(400);
    expect(problemsOf({ id: digits })[0]).toMatchObject({ index: 1, id: '9'.repeat(64), message: expect.stringMatching(/incident id/) });
    const asNumber = parseHistory(
      JSON.parse(
        `[{"id":${digits},"title":"t","type":"incident","status":"active","url":"","date_created":"2026-10-01T05:39:35-07:00","date_updated":"2026-10-01T05:39:35-07:00","notes":[],"services":[]}]`,
      ),
    );
    expect(asNumber.incidents).toEqual([]);
    expect(asNumber.problems).toHaveLength(1);
    expect(problemsOf({ id: 2 ** 53 + 2 })).toHaveLength(1); // past 2^53 neighbouring ids collapse into one
    expect(problemsOf({ id: 1.5 })).toHaveLength(1);
  });

  it('keeps ids up to the cap, digits included', () => {
    expect(one(rawIncident({ id: '1'.repeat(64) })).id).toBe('1'.repeat(64));
    expect(one(rawIncident({ id: 'a'.repeat(64) })).id).toBe('a'.repeat(64));
  });
});
