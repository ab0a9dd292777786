/** The monitor events' contract: stored once per episode id, and the newest one found whatever else the archive holds. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../src/core/events.ts';
import { decideMonitorEvent, type MonitorInput } from '../../src/core/monitor-episode.ts';
import type { PollRun } from '../../src/core/ports.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);
const MINUTE_MS = 60_000;

function run(id: string, at: number): PollRun {
  return { id, startedAt: at, finishedAt: at, outcome: 'failed', sources: [], changes: {}, error: 'v2/current: HTTP 503' };
}

export function monitorEventsContract(target: StoreTarget): void {
  describe(`monitor events (${target.name})`, () => {
    let opened: OpenedStore;
    beforeEach(async () => {
      opened = await target.open();
    });
    afterEach(() => opened.close());

    const write = (event: StatusEvent, runId: string) =>
      opened.store.applyPoll({
        run: run(runId, event.detectedAt),
        plan: { writes: [], events: [event] },
        deliveries: [],
        seenIds: [],
        seenBefore: T0,
        rejected: [],
        markSeeded: false,
      });

    it('keeps one event per episode id, and answers the newest of them', async () => {
      const { store } = opened;
      expect(await store.latestMonitorEvent()).toBeNull();
      const base: MonitorInput = {
        read: false,
        now: T0 + 6 * MINUTE_MS,
        lastSuccessAt: T0,
        pollingSince: T0,
        staleAfterMs: 5 * MINUTE_MS,
        latest: null,
        error: 'HTTP 503',
        ongoing: [],
      };
      const blind = decideMonitorEvent(base)!;
      await write(blind, 'run-1');
      // Planned again by another process: the same id, not a second event.
      await opened.openAnother().applyPoll({
        run: run('run-2', blind.detectedAt),
        plan: { writes: [], events: [blind] },
        deliveries: [],
        seenIds: [],
        seenBefore: T0,
        rejected: [],
        markSeeded: false,
      });
      const latest = await store.latestMonitorEvent();
      expect(latest).toMatchObject({ id: `monitor.blind.${T0}`, type: 'monitor.blind', incidentId: '', data: { since: new Date(T0).toISOString() } });
      expect((await store.listEvents({ types: ['monitor.blind'] }, 0, 10)).map((e) => e.id)).toEqual([`monitor.blind.${T0}`]);

      // While it lasts, the blindness is a no-data stretch with no end yet.
      expect(await store.dataCoverage(T0 - MINUTE_MS)).toEqual({ beganAt: null, blind: [{ since: T0, until: null }] });

      const recovered = decideMonitorEvent({ ...base, read: true, now: T0 + 9 * MINUTE_MS, latest })!;
      await write(recovered, 'run-3');
      expect(await store.latestMonitorEvent()).toMatchObject({ id: `monitor.recovered.${T0}`, data: { blind_for_ms: 9 * MINUTE_MS } });
      expect(await store.dataCoverage(T0 - MINUTE_MS)).toEqual({ beganAt: null, blind: [{ since: T0, until: T0 + 9 * MINUTE_MS }] });
      // The newest episode is read whatever the time asked (it could still be going on).
      expect(await store.dataCoverage(T0 + 10 * MINUTE_MS)).toEqual({ beganAt: null, blind: [{ since: T0, until: T0 + 9 * MINUTE_MS }] });
    });
  });
}
