import { describe, expect, it } from 'vitest';
import type { IncidentSpan } from '../../src/core/ports.ts';
import { NO_SERVICE_ROW, serviceDays, VENDOR_SERVICES } from '../../src/core/service-days.ts';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 9, 10, 15, 0, 0);
const at = (iso: string) => Date.parse(iso);

function span(overrides: Partial<IncidentSpan>): IncidentSpan {
  return {
    id: '1',
    title: 'Messages fail to send',
    type: 'incident',
    status: 'resolved',
    services: ['Messaging'],
    createdAt: at('2026-10-08T10:00:00Z'),
    resolvedAt: at('2026-10-08T11:00:00Z'),
    firstSeenAt: at('2026-10-08T10:01:00Z'),
    firstNoteAt: null,
    backfill: false,
    ...overrides,
  };
}

function row(rows: ReturnType<typeof serviceDays>, service: string) {
  const found = rows.find((r) => r.service === service);
  if (!found) throw new Error(`no row ${service}`);
  return found;
}

/** The dates a service's row marks, with their worst type. */
function touched(rows: ReturnType<typeof serviceDays>, service: string) {
  return row(rows, service)
    .days.filter((d) => d.worst !== null)
    .map((d) => `${d.date} ${d.worst}`);
}

describe('serviceDays', () => {
  it('marks days the archive cannot speak for as no data: wholly before it began, or wholly blind up to now', () => {
    const began = at('2026-10-06T12:00:00Z');
    const noData: [number, number][] = [
      [Number.NEGATIVE_INFINITY, began],
      [at('2026-10-08T00:00:00Z'), at('2026-10-09T00:00:00Z')],
      [at('2026-10-10T00:00:00Z'), NOW],
    ];
    const [row] = serviceDays([], { nowMs: NOW, days: 6, services: ['Files'], noData });
    expect(row!.days.map((d) => [d.date, d.noData])).toEqual([
      ['2026-10-05', true],
      ['2026-10-06', false], // half of it was read
      ['2026-10-07', false],
      ['2026-10-08', true],
      ['2026-10-09', false],
      ['2026-10-10', true], // blind since midnight, up to now
    ]);
  });

  it('shows every known service, oldest day first, ending today, even with an empty archive', () => {
    const rows = serviceDays([], { nowMs: NOW, days: 90 });
    expect(rows.map((r) => r.service)).toEqual(VENDOR_SERVICES);
    for (const r of rows) {
      expect(r.days).toHaveLength(90);
      expect(r.days.every((d) => d.worst === null && d.incidents.length === 0)).toBe(true);
    }
    expect(rows[0]!.days[0]!.date).toBe('2026-07-13');
    expect(rows[0]!.days.at(-1)!.date).toBe('2026-10-10');
  });

  it('marks each UTC day an incident was going on, and only those', () => {
    const rows = serviceDays([span({ createdAt: at('2026-10-07T23:30:00Z'), resolvedAt: at('2026-10-09T00:30:00Z') })], { nowMs: NOW, days: 7 });
    expect(touched(rows, 'Messaging')).toEqual(['2026-10-07 incident', '2026-10-08 incident', '2026-10-09 incident']);
    expect(touched(rows, 'Files')).toEqual([]);
  });

  it('does not mark the day that begins the instant an incident ended', () => {
    const rows = serviceDays([span({ createdAt: at('2026-10-08T22:00:00Z'), resolvedAt: at('2026-10-09T00:00:00Z') })], { nowMs: NOW, days: 7 });
    expect(touched(rows, 'Messaging')).toEqual(['2026-10-08 incident']);
  });

  it('marks the day of an incident that ended the instant it began', () => {
    const rows = serviceDays([span({ createdAt: at('2026-10-09T00:00:00Z'), resolvedAt: at('2026-10-09T00:00:00Z') })], { nowMs: NOW, days: 7 });
    expect(touched(rows, 'Messaging')).toEqual(['2026-10-09 incident']);
  });

  it('carries an ongoing incident up to today, and cuts one that began before the window at its edge', () => {
    const rows = serviceDays([span({ createdAt: NOW - 40 * 24 * HOUR, resolvedAt: null, status: 'active' })], { nowMs: NOW, days: 3 });
    expect(touched(rows, 'Messaging')).toEqual(['2026-10-08 incident', '2026-10-09 incident', '2026-10-10 incident']);
  });

  it('leaves out incidents that ended before the first day', () => {
    const rows = serviceDays([span({ createdAt: at('2026-10-01T10:00:00Z'), resolvedAt: at('2026-10-07T23:59:59Z') })], { nowMs: NOW, days: 3 });
    expect(touched(rows, 'Messaging')).toEqual([]);
  });

  it('colours a day by its worst incident and lists every incident of the day, oldest first', () => {
    const rows = serviceDays(
      [
        span({ id: '3', title: 'Maintenance', type: 'notice', createdAt: at('2026-10-09T01:00:00Z'), resolvedAt: at('2026-10-09T02:00:00Z') }),
        span({ id: '2', title: 'Down', type: 'outage', createdAt: at('2026-10-08T20:00:00Z'), resolvedAt: at('2026-10-09T03:00:00Z') }),
        span({ id: '1', title: 'Slow', type: 'incident', createdAt: at('2026-10-08T10:00:00Z'), resolvedAt: at('2026-10-08T11:00:00Z') }),
      ],
      { nowMs: NOW, days: 3 },
    );
    const days = row(rows, 'Messaging').days;
    expect(days[0]).toEqual({
      date: '2026-10-08',
      worst: 'outage',
      noData: false,
      incidents: [
        { id: '1', title: 'Slow', type: 'incident' },
        { id: '2', title: 'Down', type: 'outage' },
      ],
    });
    expect(days[1]!.worst).toBe('outage');
    expect(days[1]!.incidents.map((i) => i.id)).toEqual(['2', '3']);
  });

  it('shows an undocumented type as a notice, keeping the type as sent', () => {
    const rows = serviceDays([span({ type: 'maintenance' })], { nowMs: NOW, days: 3 });
    expect(row(rows, 'Messaging').days[0]).toMatchObject({ worst: 'notice', incidents: [{ type: 'maintenance' }] });
  });

  it('adds services not in the list after it, sorted, and incidents naming no service in a row of their own, last', () => {
    const rows = serviceDays([span({ id: '1', services: ['Posts/Files', 'Calls', 'Calls'] }), span({ id: '2', services: [] })], {
      nowMs: NOW,
      days: 3,
      services: ['Files', 'Messaging'],
    });
    expect(rows.map((r) => r.service)).toEqual(['Files', 'Messaging', 'Calls', 'Posts/Files', NO_SERVICE_ROW]);
    expect(row(rows, 'Calls').days[0]!.incidents.map((i) => i.id)).toEqual(['1']);
    expect(touched(rows, NO_SERVICE_ROW)).toEqual(['2026-10-08 incident']);
    expect(touched(rows, 'Messaging')).toEqual([]);
  });
});
