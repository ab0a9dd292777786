/** Polling one Statuspage-format source into the archive: a real archive file and the simulated page over HTTP. */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { createSourceBlindNotice } from '../../src/app/admin-notice.ts';
import { createFetchPageReader } from '../../src/adapters/fetch-page-reader.ts';
import { LAST_SEEN_PRECISION_MS } from '../../src/app/last-seen.ts';
import { createSourcePoller, INCIDENTS_PATH, MAINTENANCES_PATH, type SourcePollResult } from '../../src/app/source-poller.ts';
import { sourceLeaseName } from '../../src/core/statuspage/mapping.ts';
import { SUMMARY_PATH } from '../../src/app/sources.ts';
import { STALE_AFTER_MS } from '../../src/core/knowledge.ts';
import type { Clock, PageReader, StoredSource } from '../../src/core/ports.ts';
import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';
import { STORY_INCIDENT_ID, STORY_MAINTENANCE_ID, type SpStep } from '../../src/sim/statuspage/story.ts';

/** The story's components (src/sim/statuspage/story.ts). */
const API_ID = 'swcmpapi0001';
const WEBSITE_ID = 'swcmpweb0001';
const DATABASE_ID = 'swcmpdb00001';
import { startSmtp } from '../helpers/smtp.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

describe('source poller', () => {
  let archive: TempArchive;
  const pages: RunningSimulatedStatuspage[] = [];
  let now = Date.UTC(2026, 10, 27, 9, 0, 0);
  const clock: Clock = { now: () => now };
  const told: { source: string; since: number; error: string }[] = [];

  const fetchReader = () => createFetchPageReader({ timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock });
  const poller = (instanceId = 'a', reader: PageReader = fetchReader()) =>
    createSourcePoller({
      store: archive.store,
      reader,
      clock,
      logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
      instanceId,
      newId: randomUUID,
      tellBlind: async (source: StoredSource, since, error) => {
        told.push({ source: source.id, since, error });
      },
    });

  async function addPage(steps?: readonly SpStep[]): Promise<{ id: string; page: RunningSimulatedStatuspage }> {
    const page = await startSimulatedStatuspage(steps ? { steps } : {});
    pages.push(page);
    const id = `src_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    expect(await archive.store.addSource({ id, kind: 'statuspage', name: 'Acme Cloud', url: page.url, createdAt: now }, 100)).toEqual({ added: true });
    return { id, page };
  }

  /** Type and incident of each event, with the backfill flag: what a subscriber would be told. */
  const eventsOf = (result: SourcePollResult) => {
    if (result.status === 'skipped') throw new Error(`skipped: ${result.reason}`);
    return result.events.map((e) =>
      e.data.type === 'component.status_changed'
        ? `${e.type} ${e.data.component.group ?? '-'} / ${e.data.component.name}: ${e.data.from} -> ${e.data.to} (${e.data.from_state} -> ${e.data.to_state})`
        : `${e.type} ${e.incidentId.split(':')[1]}${e.backfill ? ' (backfill)' : ''}`,
    );
  };

  beforeAll(() => {
    archive = openTempArchive();
  });
  afterEach(() => {
    told.length = 0;
  });
  afterAll(async () => {
    for (const page of pages) await page.close();
    archive.remove();
  });

  it('turns the story, polled minute by minute, into exactly the events the page showed', async () => {
    const { id, page } = await addPage();
    const p = poller();
    const minute = async () => {
      now += 60_000;
      return p.pollSource(id);
    };
    // The first read backfills the page's history: no news.
    expect(eventsOf(await minute())).toEqual(['incident.created swinc0000000 (backfill)']);

    const perStep: string[][] = [];
    const componentMoves: string[][] = [];
    for (let step = 0; step < page.page.snapshot().stepCount; step++) {
      page.page.advance();
      const result = await minute();
      perStep.push(eventsOf(result));
      componentMoves.push(result.status === 'skipped' ? [] : result.componentChanges.map((c) => `${c.name}: ${c.from} -> ${c.to}`));
    }
    const inc = STORY_INCIDENT_ID;
    const mnt = STORY_MAINTENANCE_ID;
    const flip = (name: string, from: string, to: string, ours: string) => `component.status_changed ${name}: ${from} -> ${to} (${ours})`;
    // A component that only flips is an event of its own, told in the page's words and ours;
    // the group row (Core) follows its children and is not told apart.
    expect(perStep).toEqual([
      [`incident.created ${inc}`, flip('Core / API', 'operational', 'partial_outage', 'Operational -> Outage')],
      // identified and monitoring are both "active" in our words: the vendor's update is the news.
      [`incident.note_added ${inc}`],
      [`incident.note_added ${inc}`, flip('Core / API', 'partial_outage', 'operational', 'Outage -> Operational')],
      [`incident.note_added ${inc}`, flip('Core / API', 'operational', 'partial_outage', 'Operational -> Outage')],
      [`incident.status_changed ${inc}`, `incident.note_added ${inc}`, flip('Core / API', 'partial_outage', 'operational', 'Outage -> Operational')],
      [`incident.note_edited ${inc}`],
      [`incident.note_added ${inc}`],
      [flip('- / Website', 'operational', 'degraded_performance', 'Operational -> Degraded')],
      [flip('- / Website', 'degraded_performance', 'operational', 'Degraded -> Operational')],
      [`incident.created ${mnt}`],
      [
        `incident.status_changed ${mnt}`,
        `incident.note_added ${mnt}`,
        flip('Core / Database', 'operational', 'under_maintenance', 'Operational -> Maintenance'),
      ],
      [`incident.note_added ${mnt}`],
      [
        `incident.status_changed ${mnt}`,
        `incident.note_added ${mnt}`,
        flip('Core / Database', 'under_maintenance', 'operational', 'Maintenance -> Operational'),
      ],
    ]);
    expect(componentMoves).toEqual([
      ['API: operational -> partial_outage'],
      [],
      ['API: partial_outage -> operational'],
      ['API: operational -> partial_outage'],
      ['API: partial_outage -> operational'],
      [],
      [],
      ['Website: operational -> degraded_performance'],
      ['Website: degraded_performance -> operational'],
      [],
      ['Database: operational -> under_maintenance'],
      [],
      ['Database: under_maintenance -> operational'],
    ]);
    // Every version kept, every update a note in order, nothing else in the archive's words.
    const archived = [...(await archive.store.loadIncidents([`${id}:${inc}`, `${id}:${mnt}`])).values()];
    expect(archived.map((i) => [i.status, i.revision, i.notes.length])).toEqual([
      ['resolved', 7, 6],
      ['completed', 4, 4],
    ]);
    expect((await archive.store.componentStates(id)).map((c) => `${c.name} ${c.status}`).sort()).toEqual([
      'API operational',
      'Core operational',
      'Database operational',
      'Website operational',
    ]);
    // The main feed's run history is the main feed's alone.
    expect((await archive.store.feedHealth()).lastRun).toBeNull();
    // The component events are the source's in the log, each once, in the order seen.
    const logged = await archive.store.listEvents({ source: id, types: ['component.status_changed'] }, 0, 100);
    expect(logged.map((e) => [e.incidentId, e.backfill])).toEqual(
      [API_ID, API_ID, API_ID, API_ID, WEBSITE_ID, WEBSITE_ID, DATABASE_ID, DATABASE_ID].map((c) => [`${id}:component:${c}`, false]),
    );
    expect(new Set(logged.map((e) => e.id)).size).toBe(8);
    // Polling again with nothing new makes none.
    now += 60_000;
    expect(eventsOf(await p.pollSource(id))).toEqual([]);
  });

  it('makes no component event on the first read, for a component that appears or leaves, or while the page fails', async () => {
    const { id, page } = await addPage([
      {
        name: 'a component appears, one leaves, and API goes down',
        apply: (world, nowMs) => ({
          ...world,
          components: [
            ...world.components.filter((c) => c.id !== WEBSITE_ID).map((c) => (c.id === API_ID ? { ...c, status: 'major_outage', updatedMs: nowMs } : c)),
            { id: 'swcmpnew0001', name: 'Search', status: 'major_outage', position: 9, groupId: null, children: null, updatedMs: nowMs },
          ],
          updatedMs: nowMs,
        }),
      },
      {
        name: 'the database degrades',
        apply: (world, nowMs) => ({
          ...world,
          components: world.components.map((c) => (c.id === DATABASE_ID ? { ...c, status: 'partial_outage', updatedMs: nowMs } : c)),
          updatedMs: nowMs,
        }),
      },
    ]);
    const p = poller();
    const minute = async () => {
      now += 60_000;
      return p.pollSource(id);
    };
    const flips = (result: SourcePollResult) => eventsOf(result).filter((e) => e.startsWith('component.'));
    // The first read: the page's components as they are, no news.
    expect(flips(await minute())).toEqual([]);
    page.page.advance();
    expect(flips(await minute())).toEqual(['component.status_changed Core / API: operational -> major_outage (Operational -> Outage)']);
    // The page fails while the database degrades: nothing is told until it is read again, then once.
    page.page.advance();
    page.page.addFault({ target: '*', kind: 'status', status: 503 });
    const failed = await minute();
    expect(failed.status).toBe('failed');
    expect(flips(failed)).toEqual([]);
    page.page.clearFaults();
    expect(flips(await minute())).toEqual(['component.status_changed Core / Database: operational -> partial_outage (Operational -> Outage)']);
    expect(flips(await minute())).toEqual([]);
    expect((await archive.store.listEvents({ source: id, types: ['component.status_changed'] }, 0, 10)).length).toBe(2);
  });

  it('asks for the summary only, conditionally, while the page is unchanged', async () => {
    const { id, page } = await addPage();
    const p = poller();
    now += 60_000;
    await p.pollSource(id);
    const before = page.page.requests().length;
    now += 60_000;
    const quiet = await p.pollSource(id);
    expect(quiet.status !== 'skipped' && { unchanged: quiet.unchanged, reads: quiet.reads.map((r) => [r.path, r.notModified]) }).toEqual({
      unchanged: true,
      reads: [[SUMMARY_PATH, true]],
    });
    expect(
      page.page
        .requests()
        .slice(before)
        .map((r) => [r.path, r.ifNoneMatch || r.ifModifiedSince, r.status]),
    ).toEqual([[SUMMARY_PATH, true, 304]]);
    // A component flip changes the summary: the incidents list is asked again (conditionally), the maintenances list is not.
    page.page.advance();
    now += 60_000;
    const changed = await p.pollSource(id);
    expect(changed.status !== 'skipped' && changed.reads.map((r) => r.path)).toEqual([SUMMARY_PATH, INCIDENTS_PATH]);
  });

  it("reads an unchanged page in full again ten minutes after its last full read, so what it shows is seen within last_seen_at's precision", async () => {
    const { id, page } = await addPage();
    const p = poller();
    const lastSeen = () => (archive.sqlite.prepare('SELECT last_seen_ms AS at FROM incidents WHERE id = ?').get(`${id}:swinc0000000`) as { at: number }).at;
    /** Polls `minutes` later: what the page was asked for (conditionally or not) and answered. */
    const pollAfter = async (minutes: number) => {
      now += minutes * 60_000;
      const before = page.page.requests().length;
      await p.pollSource(id);
      return page.page
        .requests()
        .slice(before)
        .map((r) => `${r.path} ${r.ifNoneMatch || r.ifModifiedSince ? 'conditional' : 'full'} ${r.status}`);
    };
    expect(await pollAfter(1)).toEqual([`${SUMMARY_PATH} full 200`, `${INCIDENTS_PATH} full 200`, `${MAINTENANCES_PATH} full 200`]);
    const firstRead = now;
    expect(lastSeen()).toBe(firstRead);
    // The page stays the same: nine minutes of 304s, and last_seen_at stays where it was.
    for (let minute = 1; minute <= 9; minute++) expect(await pollAfter(1)).toEqual([`${SUMMARY_PATH} conditional 304`]);
    expect(lastSeen()).toBe(firstRead);
    // Ten minutes after the last full read, the page is read in full and what it shows is seen now.
    expect(await pollAfter(1)).toEqual([`${SUMMARY_PATH} full 200`, `${INCIDENTS_PATH} full 200`]);
    expect(lastSeen()).toBe(now);
    // And conditionally again after it.
    expect(await pollAfter(1)).toEqual([`${SUMMARY_PATH} conditional 304`]);
  });

  it("skips the last_seen_at refresh in a diff soon after one that covered its incidents, by the main feed's rule, and never lets last_seen_at age past its precision", async () => {
    // The real store, with the ids each write refreshes written down.
    const refreshed: string[][] = [];
    const counting = Object.create(archive.store) as typeof archive.store;
    counting.applyPoll = (input) => {
      if (input.seenIds.length > 0 || input.plan.writes.length > 0 || input.components) refreshed.push([...input.seenIds].sort());
      return archive.store.applyPoll(input);
    };
    const { id, page } = await addPage();
    const pollerWith = () =>
      createSourcePoller({
        store: counting,
        reader: fetchReader(),
        clock,
        logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
        instanceId: 'seen',
        newId: randomUUID,
      });
    let p = pollerWith();
    const lastSeen = (incident: string) =>
      (archive.sqlite.prepare('SELECT last_seen_ms AS at FROM incidents WHERE id = ?').get(`${id}:${incident}`) as { at: number }).at;
    const old = `${id}:swinc0000000`;
    const story = `${id}:${STORY_INCIDENT_ID}`;
    const maintenance = `${id}:${STORY_MAINTENANCE_ID}`;
    /** The page moves one step of its story, read `minutes` later: the ids that diff refreshed. */
    const step = async (minutes: number) => {
      page.page.advance();
      now += minutes * 60_000;
      const result = await p.pollSource(id);
      expect(result.status !== 'skipped' && result.unchanged).toBe(false);
      // Whatever each diff skipped: an incident the page shows is never seen longer ago than this.
      expect(now - lastSeen('swinc0000000')).toBeLessThan(LAST_SEEN_PRECISION_MS);
      return refreshed.at(-1);
    };

    now += 60_000;
    await p.pollSource(id);
    expect(refreshed.at(-1)).toEqual([old]);
    const first = lastSeen('swinc0000000');
    // The story's incident is new: the diff refreshes every incident seen.
    expect(await step(1)).toEqual([old, story]);
    expect(await step(1)).toEqual([]); // a minute later, of the same incidents: skipped
    expect(await step(3)).toEqual([]); // four minutes after the refresh
    expect(lastSeen('swinc0000000')).toBe(first);
    // Half the precision after the last refresh, the diff refreshes again.
    expect(await step(1.5)).toEqual([old, story]);
    expect(lastSeen('swinc0000000')).toBe(now);
    for (let minute = 0; minute < 4; minute++) expect(await step(0.5)).toEqual([]);
    // Another process (or this one after a restart) knows of no refresh: its first diff makes one.
    p = pollerWith();
    expect(await step(0.5)).toEqual([old, story]);
    // An incident the refresh did not cover (the maintenance, scheduled) makes the diff refresh them all.
    expect(await step(0.5)).toEqual([old, story, maintenance]);
    expect(await step(0.5)).toEqual([]);
  });

  it('leaves an open incident that is no longer shown as the archive knows it: not resolved, no event', async () => {
    const vanish: SpStep = { name: 'the open incident leaves every list', apply: (world, nowMs) => ({ ...world, incidents: [], updatedMs: nowMs }) };
    const open: SpStep = {
      name: 'an incident opens',
      apply: (world, nowMs) => ({
        ...world,
        incidents: [
          {
            id: 'vninc0000001',
            name: 'Queue delays',
            status: 'identified',
            impact: 'minor',
            createdMs: nowMs,
            updatedMs: nowMs,
            resolvedMs: null,
            componentIds: [],
            updates: [{ id: 'vnupd0000001', status: 'identified', body: 'Queues are slow.', createdMs: nowMs, updatedMs: nowMs, affected: null }],
          },
        ],
        updatedMs: nowMs,
      }),
    };
    const { id, page } = await addPage([open, vanish]);
    const p = poller();
    now += 60_000;
    await p.pollSource(id);
    page.page.advance();
    now += 60_000;
    expect(eventsOf(await p.pollSource(id))).toEqual(['incident.created vninc0000001']);
    page.page.advance();
    now += 60_000;
    const gone = await p.pollSource(id);
    expect(eventsOf(gone)).toEqual([]);
    expect(gone.status !== 'skipped' && gone.reads.map((r) => r.path)).toContain(INCIDENTS_PATH);
    const [kept] = (await archive.store.loadIncidents([`${id}:vninc0000001`])).values();
    expect(kept && [kept.status, kept.resolvedAt, kept.revision]).toEqual(['active', null, 1]);
  });

  it('counts a dead page as that source failing, tells the admin once per episode, and reads it again after', async () => {
    const { id, page } = await addPage();
    const other = await addPage();
    const p = poller();
    now += 60_000;
    expect((await p.pollSource(id)).status).toBe('ok');
    const lastGood = now;
    page.page.addFault({ target: '*', kind: 'status', status: 503 });
    const results: SourcePollResult[] = [];
    for (let minute = 0; minute < 8; minute++) {
      now += 60_000;
      results.push(await p.pollSource(id));
      // Another page is read on time meanwhile.
      expect((await p.pollSource(other.id)).status).toBe('ok');
    }
    expect(results.map((r) => r.status)).toEqual(Array(8).fill('failed'));
    expect(told).toEqual([{ source: id, since: lastGood, error: expect.stringContaining('HTTP 503') }]);
    const [failing] = (await archive.store.listSources()).filter((s) => s.id === id);
    expect(failing?.poll).toMatchObject({ consecutiveFailures: 8, lastSuccessAt: lastGood, blindSince: lastGood });
    expect(now - lastGood).toBeGreaterThanOrEqual(STALE_AFTER_MS);

    page.page.clearFaults();
    now += 60_000;
    expect((await p.pollSource(id)).status).toBe('ok');
    const [back] = (await archive.store.listSources()).filter((s) => s.id === id);
    expect(back?.poll).toMatchObject({ consecutiveFailures: 0, blindSince: null, blindToldAt: null, lastSuccessAt: now });
    // The spell is on record, from the last good read to the read that ended it; the other page, read each minute, has none.
    expect(await archive.store.blindSpells(id, 0)).toEqual([{ since: lastGood, until: now }]);
    expect(await archive.store.blindSpells(other.id, 0)).toEqual([]);
  });

  it('records a spell whenever a page was read again the staleness limit or more after its last good read, polls failing or none made', async () => {
    const { id } = await addPage();
    const added = now;
    const p = poller();
    // Never read in the first ten minutes (its first polls waited): that time was not known either.
    now += 10 * 60_000;
    expect((await p.pollSource(id)).status).toBe('ok');
    const firstRead = now;
    // Read each minute, then not at all for an hour (the process was down), then read again.
    for (let minute = 0; minute < 3; minute++) {
      now += 60_000;
      expect((await p.pollSource(id)).status).toBe('ok');
    }
    const lastGood = now;
    now += 60 * 60_000;
    expect((await p.pollSource(id)).status).toBe('ok');
    // Just under the limit after it: a late poll, not a spell.
    now += STALE_AFTER_MS - 1;
    expect((await p.pollSource(id)).status).toBe('ok');
    expect(await archive.store.blindSpells(id, 0)).toEqual([
      { since: added, until: firstRead },
      { since: lastGood, until: lastGood + 60 * 60_000 },
    ]);
  });

  it("mails the admin once when a page goes blind, the page's name kept out of the headers", async () => {
    const smtp = await startSmtp();
    const mailer = createSmtpMailer({ smtpUrl: smtp.url, from: 'status@example.test' });
    try {
      const logger = createConsoleLogger({ level: 'error', format: 'json', write: () => {} });
      const notice = createSourceBlindNotice({
        mailer,
        adminEmail: 'admin@example.test',
        publicUrl: 'https://status.example.test',
        logger,
      });
      const { id, page } = await addPage();
      // A page's name is the page's own: an outsider's text.
      archive.connection.db.run(sql`UPDATE sources SET name = ${'Evil\r\nBcc: victim@example.test'} WHERE id = ${id}`);
      const blindPoller = createSourcePoller({
        store: archive.store,
        reader: createFetchPageReader({ timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
        clock,
        logger,
        instanceId: 'mail',
        newId: randomUUID,
        tellBlind: notice,
      });
      page.page.addFault({ target: '*', kind: 'status', status: 503 });
      for (let minute = 0; minute < 7; minute++) {
        now += 60_000;
        await blindPoller.pollSource(id);
      }
      expect(smtp.rcptTo).toEqual(['admin@example.test']);
      expect(smtp.received.map((m) => m.subject)).toEqual(['[statuswatch] Source unknown: Evil Bcc: victim@example.test']);
      expect(smtp.received[0]?.text).toContain(page.url);
      expect(smtp.received[0]?.text).toContain('HTTP 503');
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it('polls at most so many sources a round when asked, those polled longest ago first, so every source gets its turn', async () => {
    const fresh = openTempArchive();
    try {
      const ids: string[] = [];
      for (let n = 0; n < 3; n++) {
        const page = await startSimulatedStatuspage();
        pages.push(page);
        const id = `src_turn${n}`;
        await fresh.store.addSource({ id, kind: 'statuspage', name: `Page ${n}`, url: page.url, createdAt: now }, 100);
        ids.push(id);
      }
      const p = createSourcePoller({
        store: fresh.store,
        reader: createFetchPageReader({ timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
        clock,
        logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
        instanceId: 'turns',
        newId: randomUUID,
      });
      const rounds: string[][] = [];
      for (let round = 0; round < 5; round++) {
        now += 60_000;
        rounds.push((await p.pollAll({ atMost: 2 })).map((r) => r.sourceId));
      }
      expect(rounds[0]).toEqual([ids[0], ids[1]]);
      // Three sources two a round: every source has its turn within any two rounds running.
      for (let round = 1; round < rounds.length; round++) {
        expect(new Set([...rounds[round - 1]!, ...rounds[round]!])).toEqual(new Set(ids));
      }
    } finally {
      fresh.remove();
    }
  });

  it('a source removed while its page is read is no such source, whether the page was unchanged or failing: no state saved, no admin told', async () => {
    for (const failing of [false, true]) {
      const { id, page } = await addPage();
      now += 60_000;
      expect((await poller().pollSource(id)).status).toBe('ok');
      // Lost for long enough that a failed read would tell the admin.
      now += STALE_AFTER_MS;
      if (failing) page.page.addFault({ target: '*', kind: 'status', status: 503 });
      // The page's real answer (a 304, or a 503), with the source removed while it came.
      const real = fetchReader();
      const removedMeanwhile: PageReader = {
        read: async (...args) => {
          try {
            return await real.read(...args);
          } finally {
            await archive.store.removeSource(id);
          }
        },
      };
      const result = await poller('a', removedMeanwhile).pollSource(id);
      expect([failing, result]).toEqual([failing, { sourceId: id, status: 'skipped', reason: 'no such source' }]);
      expect(await archive.store.getSource(id)).toBeNull();
      expect(told).toEqual([]);
      page.page.clearFaults();
    }
  });

  it('polls a source once at a time: a poll while its lease is held is skipped', async () => {
    const { id } = await addPage();
    expect(await archive.store.tryAcquireLease(sourceLeaseName(id), 'other-process', now, 60_000)).toBe(true);
    expect(await poller('b').pollSource(id)).toEqual({ sourceId: id, status: 'skipped', reason: 'another poll is running' });
    await archive.store.releaseLease(sourceLeaseName(id), 'other-process');
    expect((await poller('b').pollSource(id)).status).toBe('ok');
  });
});
