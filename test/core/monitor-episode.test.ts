import { describe, expect, it } from 'vitest';
import type { MonitorEvent } from '../../src/core/events.ts';
import { STALE_AFTER_MS } from '../../src/core/knowledge.ts';
import { decideMonitorEvent, MONITOR_QUIET_MS, type MonitorInput } from '../../src/core/monitor-episode.ts';

const MINUTE_MS = 60_000;
const t0 = Date.UTC(2026, 10, 1, 12);

/** Runs polls (true: the feed was read) a minute apart and keeps the events as the archive would. */
function simulate(reads: boolean[], start = t0): MonitorEvent[] {
  const events: MonitorEvent[] = [];
  let lastSuccessAt: number | null = start;
  reads.forEach((read, i) => {
    const now = start + (i + 1) * MINUTE_MS;
    const input: MonitorInput = {
      read,
      now,
      lastSuccessAt,
      pollingSince: start,
      staleAfterMs: STALE_AFTER_MS,
      latest: events.at(-1) ?? null,
      error: 'v2/current: HTTP 503',
      ongoing: [],
    };
    const event = decideMonitorEvent(input);
    if (event && !events.some((e) => e.id === event.id)) events.push(event);
    if (read) lastSuccessAt = now;
  });
  return events;
}

describe('decideMonitorEvent', () => {
  it('is quiet within the limit, blind once from it, recovered once at the next read', () => {
    expect(simulate([false, false, false, false])).toEqual([]);
    const events = simulate([false, false, false, false, false, false, false, false, true, true]);
    expect(events.map((e) => e.id)).toEqual([`monitor.blind.${t0}`, `monitor.recovered.${t0}`]);
    expect(events[0]!.data).toMatchObject({ since: new Date(t0).toISOString(), last_error: 'v2/current: HTTP 503' });
    expect(events[1]!.data).toMatchObject({ blind_for_ms: 9 * MINUTE_MS });
  });

  it('a feed read every four minutes never goes blind; one flickering around the limit sends one pair per quiet time', () => {
    expect(simulate(Array.from({ length: 120 }, (_, i) => i % 4 === 3))).toEqual([]);
    // Six minutes dark, one read, for two hours: 17 episodes of blindness, at most one pair per 30 minutes.
    const flicker = Array.from({ length: 120 }, (_, i) => i % 7 === 6);
    const events = simulate(flicker);
    const blinds = events.filter((e) => e.type === 'monitor.blind');
    expect(blinds.length).toBeGreaterThan(0);
    expect(blinds.length).toBeLessThanOrEqual(Math.ceil((120 * MINUTE_MS) / MONITOR_QUIET_MS));
    for (let i = 1; i < blinds.length; i++) expect(blinds[i]!.detectedAt - blinds[i - 1]!.detectedAt).toBeGreaterThanOrEqual(MONITOR_QUIET_MS);
  });

  it('keeps what we last knew small: five incidents at most, titles cut, the rest counted', () => {
    const incident = (id: string) => ({ id, title: 'x'.repeat(1_000_000), type: 'outage', status: 'active', services: Array(100).fill('Files') }) as never;
    const event = decideMonitorEvent({
      read: false,
      now: t0 + STALE_AFTER_MS,
      lastSuccessAt: t0,
      pollingSince: t0,
      staleAfterMs: STALE_AFTER_MS,
      latest: null,
      error: 'e'.repeat(10_000),
      ongoing: Array.from({ length: 8 }, (_, i) => incident(String(i))),
    })!;
    expect(JSON.stringify(event.data).length).toBeLessThan(20_000);
    expect(event.data).toMatchObject({ last_known: { more: 3 } });
  });

  it('a feed never read is blind from when polling began, under one id', () => {
    const input: MonitorInput = {
      read: false,
      now: t0 + STALE_AFTER_MS,
      lastSuccessAt: null,
      pollingSince: t0,
      staleAfterMs: STALE_AFTER_MS,
      latest: null,
      error: 'refused',
      ongoing: [],
    };
    expect(decideMonitorEvent({ ...input, now: t0 + STALE_AFTER_MS - 1 })).toBeNull();
    expect(decideMonitorEvent(input)).toMatchObject({ id: 'monitor.blind.never', data: { since: null, last_known: { ongoing: [], more: 0 } } });
  });
});
