import { describe, expect, it } from 'vitest';
import type { IncidentSpan } from '../../src/core/ports.ts';
import { computeReliability, PARTIAL_OUTAGE_WEIGHT, percentFloor, percentile, percentText, reliabilitySince } from '../../src/core/reliability.ts';
import { VENDOR_SERVICES } from '../../src/core/service-days.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 9, 10, 15, 0, 0);
const WINDOW_30_MS = 30 * DAY;
const WINDOW_90_MS = 90 * DAY;

let nextId = 1;
function span(overrides: Partial<IncidentSpan>): IncidentSpan {
  const createdAt = overrides.createdAt ?? NOW - 5 * DAY;
  return {
    id: String(nextId++),
    title: 'Files fail to upload',
    type: 'incident',
    status: 'resolved',
    services: ['Files'],
    createdAt,
    resolvedAt: createdAt + HOUR,
    firstSeenAt: createdAt + MINUTE,
    firstNoteAt: createdAt + 20 * MINUTE,
    backfill: false,
    ...overrides,
  };
}

function windowOf(spans: IncidentSpan[], service: string, days: number) {
  const found = computeReliability(spans, { nowMs: NOW }).services.find((s) => s.service === service);
  const window = found?.windows.find((w) => w.days === days);
  if (!window) throw new Error(`no ${days}-day window for ${service}`);
  return window;
}

function month(spans: IncidentSpan[], key: string, nowMs = NOW) {
  const found = computeReliability(spans, { nowMs }).months.find((m) => m.month === key);
  if (!found) throw new Error(`no month ${key}`);
  return found;
}

describe('availability', () => {
  it('is whole for every known service of an empty archive, over 30 and 90 days ending now', () => {
    const result = computeReliability([], { nowMs: NOW });
    expect(result.services.map((s) => s.service)).toEqual(VENDOR_SERVICES);
    for (const service of result.services) {
      expect(service.windows).toEqual([
        {
          days: 30,
          startMs: NOW - WINDOW_30_MS,
          endMs: NOW,
          availability: 1,
          observedMs: WINDOW_30_MS,
          outageMs: 0,
          partialMs: 0,
          downtimeMs: 0,
          incidents: 0,
        },
        {
          days: 90,
          startMs: NOW - WINDOW_90_MS,
          endMs: NOW,
          availability: 1,
          observedMs: WINDOW_90_MS,
          outageMs: 0,
          partialMs: 0,
          downtimeMs: 0,
          incidents: 0,
        },
      ]);
    }
    expect(result.partialOutageWeight).toBe(PARTIAL_OUTAGE_WEIGHT);
  });

  it('leaves time without data out of availability, downtime included, and claims nothing without any', () => {
    // The archive began 10 days ago; an outage of an hour, then 2 days blind during a second outage.
    const began = NOW - 10 * DAY;
    const blind: [number, number] = [NOW - 4 * DAY, NOW - 2 * DAY];
    const noData: [number, number][] = [[Number.NEGATIVE_INFINITY, began], blind];
    const spans = [span({ type: 'outage', createdAt: NOW - 7 * DAY }), span({ id: '2', type: 'outage', createdAt: NOW - 5 * DAY, resolvedAt: NOW - 3 * DAY })];
    const window = computeReliability(spans, { nowMs: NOW, noData }).services.find((s) => s.service === 'Files')!.windows[0]!;
    expect(window.observedMs).toBe(8 * DAY);
    // The second outage counts only for the day before the blindness began.
    expect(window.outageMs).toBe(HOUR + DAY);
    expect(window.availability).toBeCloseTo(1 - (HOUR + DAY) / (8 * DAY), 12);
    const none = computeReliability([], { nowMs: NOW, noData: [[Number.NEGATIVE_INFINITY, NOW]] }).services[0]!.windows[0]!;
    expect(none).toMatchObject({ availability: null, observedMs: 0 });
  });

  it('counts an outage in full, an incident at the partial weight, and a notice not at all', () => {
    const outage = windowOf([span({ type: 'outage' })], 'Files', 30);
    expect(outage).toMatchObject({ outageMs: HOUR, partialMs: 0, downtimeMs: HOUR, incidents: 1 });
    expect(outage.availability).toBeCloseTo(1 - HOUR / WINDOW_30_MS, 12);

    const partial = windowOf([span({ type: 'incident' })], 'Files', 90);
    expect(partial).toMatchObject({ outageMs: 0, partialMs: HOUR, incidents: 1 });
    expect(partial.downtimeMs).toBeCloseTo(0.3 * HOUR, 6);
    expect(partial.availability).toBeCloseTo(1 - (0.3 * HOUR) / WINDOW_90_MS, 12);

    expect(windowOf([span({ type: 'notice' })], 'Files', 30)).toMatchObject({ availability: 1, downtimeMs: 0, incidents: 1 });
  });

  it('never counts an instant twice: overlapping incidents merge, and an outage inside an incident counts as outage only', () => {
    const t = NOW - 3 * DAY;
    const spans = [
      span({ type: 'incident', createdAt: t, resolvedAt: t + 2 * HOUR }),
      span({ type: 'incident', createdAt: t + HOUR, resolvedAt: t + 3 * HOUR }),
      span({ type: 'outage', createdAt: t + 90 * MINUTE, resolvedAt: t + 150 * MINUTE }),
      span({ type: 'outage', createdAt: t + 2 * HOUR, resolvedAt: t + 150 * MINUTE }),
    ];
    const window = windowOf(spans, 'Files', 30);
    expect(window).toMatchObject({ outageMs: HOUR, partialMs: 2 * HOUR, incidents: 4 });
    expect(window.downtimeMs).toBeCloseTo(HOUR + PARTIAL_OUTAGE_WEIGHT * 2 * HOUR, 6);
  });

  it('counts an ongoing incident until now', () => {
    expect(windowOf([span({ type: 'outage', createdAt: NOW - 2 * HOUR, resolvedAt: null, status: 'active' })], 'Files', 30)).toMatchObject({
      outageMs: 2 * HOUR,
      incidents: 1,
    });
  });

  it('cuts an incident at the edge of each window', () => {
    const crossing = span({ type: 'outage', createdAt: NOW - 31 * DAY, resolvedAt: NOW - 29 * DAY });
    expect(windowOf([crossing], 'Files', 30).outageMs).toBe(DAY);
    expect(windowOf([crossing], 'Files', 90).outageMs).toBe(2 * DAY);
    const before = span({ type: 'outage', createdAt: NOW - 32 * DAY, resolvedAt: NOW - 31 * DAY });
    expect(windowOf([before], 'Files', 30)).toMatchObject({ outageMs: 0, incidents: 0 });
    expect(windowOf([before], 'Files', 90)).toMatchObject({ outageMs: DAY, incidents: 1 });
  });

  it('counts an incident against each service it names, once each; one naming none against no service', () => {
    const result = computeReliability([span({ type: 'outage', services: ['Files', 'Search', 'Files'] }), span({ type: 'outage', services: [] })], {
      nowMs: NOW,
    });
    const outageOf = (service: string) => result.services.find((s) => s.service === service)!.windows[0]!.outageMs;
    expect([outageOf('Files'), outageOf('Search'), outageOf('Messaging')]).toEqual([HOUR, HOUR, 0]);
    expect(result.services).toHaveLength(VENDOR_SERVICES.length);
    expect(result.months.at(-1)!.incidents.total).toBe(2);
  });

  it('adds a service outside the list when it had an incident within 90 days, after the list and sorted', () => {
    const result = computeReliability(
      [
        span({ services: ['Posts/Files'] }),
        span({ services: ['Calls'], createdAt: NOW - 80 * DAY }),
        span({ services: ['Link Previews'], createdAt: NOW - 100 * DAY }),
      ],
      { nowMs: NOW, services: ['Files'] },
    );
    expect(result.services.map((s) => s.service)).toEqual(['Files', 'Calls', 'Posts/Files']);
  });
});

describe('monthly figures', () => {
  it('says how much of each month the archive saw: none before it began, none while blind', () => {
    const began = Date.UTC(2026, 8, 15);
    const { months } = computeReliability([], { nowMs: NOW, noData: [[Number.NEGATIVE_INFINITY, began]] });
    expect(months.slice(-3).map((m) => m.observedMs)).toEqual([0, Date.UTC(2026, 9, 1) - began, NOW - Date.UTC(2026, 9, 1)]);
    expect(months.slice(0, -2).every((m) => m.observedMs === 0)).toBe(true);
  });

  it('covers the last 12 UTC months, the current one included, empty in an empty archive', () => {
    const { months } = computeReliability([], { nowMs: NOW });
    expect(months.map((m) => m.month)).toEqual([
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-02',
      '2026-03',
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
    ]);
    expect(months[0]).toMatchObject({ startMs: Date.UTC(2025, 10, 1), endMs: Date.UTC(2025, 11, 1) });
    expect(months.at(-1)).toEqual({
      month: '2026-10',
      startMs: Date.UTC(2026, 9, 1),
      endMs: Date.UTC(2026, 10, 1),
      // No no-data intervals given: the month is seen up to now.
      observedMs: NOW - Date.UTC(2026, 9, 1),
      incidents: { total: 0, outage: 0, incident: 0, notice: 0, other: 0 },
      timeToResolve: { count: 0, medianMs: null, p90Ms: null, ongoing: 0 },
      timeToFirstUpdate: { count: 0, medianMs: null, p90Ms: null },
      detectionLag: { count: 0, medianMs: null, p90Ms: null },
    });
  });

  it('puts an incident in the UTC month of its date_created, and leaves out older ones', () => {
    const spans = [
      span({ type: 'outage', createdAt: Date.UTC(2026, 9, 1) - 1 }),
      span({ type: 'notice', createdAt: Date.UTC(2026, 9, 1) }),
      span({ type: 'maintenance', createdAt: Date.UTC(2026, 9, 1) }),
      span({ createdAt: Date.UTC(2025, 10, 1) - 1 }),
    ];
    expect(month(spans, '2026-09').incidents).toEqual({ total: 1, outage: 1, incident: 0, notice: 0, other: 0 });
    expect(month(spans, '2026-10').incidents).toEqual({ total: 2, outage: 0, incident: 0, notice: 1, other: 1 });
    expect(month(spans, '2025-11').incidents.total).toBe(0);
  });

  it('spans a year boundary', () => {
    const january = Date.UTC(2027, 0, 15);
    const { months } = computeReliability([span({ createdAt: Date.UTC(2026, 11, 31, 23, 59) })], { nowMs: january });
    expect([months[0]!.month, months.at(-1)!.month]).toEqual(['2026-02', '2027-01']);
    expect(months.find((m) => m.month === '2026-12')!.incidents.total).toBe(1);
  });

  it('gives median and p90 time to resolve of resolved incidents, and counts the ongoing apart', () => {
    const t = Date.UTC(2026, 8, 3);
    const spans = [10, 40, 20, 30].map((minutes) => span({ createdAt: t, resolvedAt: t + minutes * MINUTE }));
    spans.push(span({ createdAt: t, resolvedAt: null, status: 'active' }));
    expect(month(spans, '2026-09').timeToResolve).toEqual({ count: 4, medianMs: 25 * MINUTE, p90Ms: 37 * MINUTE, ongoing: 1 });
  });

  it('gives time to the first update of incidents that had one', () => {
    const t = Date.UTC(2026, 8, 3);
    const spans = [span({ createdAt: t, firstNoteAt: t + 15 * MINUTE }), span({ createdAt: t, firstNoteAt: null })];
    expect(month(spans, '2026-09').timeToFirstUpdate).toEqual({ count: 1, medianMs: 15 * MINUTE, p90Ms: 15 * MINUTE });
  });

  it('gives detection lag without backfilled incidents, and reads a first-seen before date_created as no lag', () => {
    const t = Date.UTC(2026, 8, 3);
    const spans = [
      span({ createdAt: t, firstSeenAt: t + 2 * MINUTE }),
      span({ createdAt: t, firstSeenAt: t - 3000 }),
      span({ createdAt: t, firstSeenAt: t + 30 * DAY, backfill: true }),
    ];
    expect(month(spans, '2026-09').detectionLag).toEqual({ count: 2, medianMs: MINUTE, p90Ms: Math.round(0.9 * 2 * MINUTE) });
  });
});

describe('percentile', () => {
  it('interpolates between closest ranks', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([7], 0.9)).toBe(7);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(3); // 2.5 rounded to whole ms
    expect(percentile([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000], 0.9)).toBe(900);
  });
});

describe('reliabilitySince', () => {
  it('reaches back to the earlier of the longest window and the first month', () => {
    expect(reliabilitySince(NOW)).toBe(Date.UTC(2025, 10, 1));
  });
});

describe('availability as every face writes it', () => {
  it('writes an exact share exactly, though its ratio carries floating-point error', () => {
    // Down 4 of 5 observed minutes; down 71 of 100; up 29 of 100.
    expect(percentText(1 - (4 * MINUTE) / (5 * MINUTE))).toBe('20.000%');
    expect(percentText(1 - 71 / 100)).toBe('29.000%');
    expect(percentText(29 / 100)).toBe('29.000%');
    expect(percentFloor(1 - 71 / 100)).toBe(29);
  });

  it('never reads 100% for a service that was down at all, even for a millisecond in 90 days', () => {
    expect(percentText(1 - 1 / WINDOW_90_MS)).toBe('99.999%');
    expect(percentFloor(1 - Number.EPSILON)).toBe(99.999);
    expect(percentText(1)).toBe('100%');
  });

  it('cuts rather than rounds: 99.9996% up is 99.999%', () => {
    expect(percentText(0.999996)).toBe('99.999%');
    expect(percentText(0.5)).toBe('50.000%');
    expect(percentText(0)).toBe('0.000%');
    expect(percentText(null)).toBe('no data');
  });
});
