/** The poll use case on a real archive and a real feed over HTTP, with two pollers sharing one archive. */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { nodeHashes } from '../../src/adapters/node-hashes.ts';
import { createPoller, FEED_PATHS, LAST_SEEN_PRECISION_MS, type Poller, type PollerDeps, type PollResult } from '../../src/app/poller.ts';
import type { Clock, Hashes, PollStore } from '../../src/core/ports.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

/** A poller of the vendor's feed into `store`, as each runtime makes one; `more` adds or replaces what a test needs. */
function pollerOf(vendor: TestVendor, store: PollStore, clock: Clock, instanceId: string, more: Partial<PollerDeps> = {}): Poller {
  return createPoller({
    store,
    feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
    clock,
    logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
    instanceId,
    newId: randomUUID,
    ...more,
  });
}

describe('poller', () => {
  let vendor: TestVendor;
  let archive: TempArchive;
  let now = Date.UTC(2026, 10, 22, 10, 0, 0);
  const clock: Clock = { now: () => now };

  const newPoller = (name: string, more: Partial<PollerDeps> = {}) => pollerOf(vendor, archive.store, clock, name, more);

  /** Another process retitles an archived incident without reading this feed: its revision moves on. */
  async function retitleElsewhere(id: string, title: string) {
    const [archived] = (await archive.store.loadIncidents([id])).values();
    await archive.store.applyPoll({
      run: { id: randomUUID(), startedAt: now, finishedAt: now, outcome: 'ok', sources: [], changes: {} },
      plan: {
        writes: [
          {
            incident: { ...archived!, title },
            previous: archived!,
            baseRevision: archived!.revision,
            revision: archived!.revision + 1,
            resolvedAt: archived!.resolvedAt,
          },
        ],
        events: [],
      },
      deliveries: [],
      seenIds: [],
      seenBefore: now,
      rejected: [],
      markSeeded: false,
    });
  }

  beforeAll(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
  });
  afterAll(async () => {
    archive.remove();
    await vendor.close();
  });

  it('notices what another process wrote, even when the feed goes back to what it cached', async () => {
    const a = newPoller('a');
    const b = newPoller('b');
    const original = rawIncident({ id: 1 });
    await vendor.setIncidents([original]);
    expect((await a.pollOnce()).status).toBe('ok'); // a now caches revision 1

    await vendor.setIncidents([{ ...original, title: 'Edited' }]);
    const edit = await b.pollOnce();
    expect(edit.status !== 'skipped' && edit.events.map((e) => e.id)).toEqual(['1.r2.updated']);

    await vendor.setIncidents([original]); // the vendor reverts the edit
    now += 1000;
    const revert = await a.pollOnce();
    expect(revert.status !== 'skipped' && revert.events.map((e) => [e.id, e.data])).toEqual([
      ['1.r3.updated', expect.objectContaining({ changes: { title: { from: 'Edited', to: original.title } } })],
    ]);
  });

  it('skips parse and diff in a poller made for the poll when the feed is what the last diff read, and diffs once another process wrote', async () => {
    const original = rawIncident({ id: 7, title: 'Seven' });
    await vendor.setIncidents([original]);
    now += 1000;
    const diffed = await newPoller('d').pollOnce();
    expect(diffed.status !== 'skipped' && diffed.unchanged).toBe(false);

    // A new poller per poll, as each cron invocation of a Worker makes: the archive says the
    // bodies were diffed, so nothing is parsed or diffed, and the run still says what they held.
    now += 60_000;
    const fresh = await newPoller('e').pollOnce();
    expect(fresh.status !== 'skipped' && { unchanged: fresh.unchanged, events: fresh.events, incidents: fresh.run.sources.map((s) => s.incidents) }).toEqual({
      unchanged: true,
      events: [],
      incidents: [1, 1],
    });

    // Another process writes incident 7 without reading this feed: the same bodies are diffed again.
    await retitleElsewhere('7', 'Edited elsewhere');
    now += 60_000;
    const after = await newPoller('f').pollOnce();
    expect(after.status !== 'skipped' && { unchanged: after.unchanged, events: after.events.map((e) => e.type) }).toEqual({
      unchanged: false,
      events: ['incident.updated'],
    });
    expect((await archive.store.getIncident('7'))?.title).toBe('Seven');
  });

  it('loads and diffs only the incidents that changed since the last diff, in a poller made for the poll, and still sees a write by another process', async () => {
    const feed = [rawIncident({ id: 31, title: 'One' }), rawIncident({ id: 32, title: 'Two' }), rawIncident({ id: 33, title: 'Three' })];
    await vendor.setIncidents(feed);
    now += 1000;
    await newPoller('g').pollOnce();

    // The real store, with the incidents each poll loads whole written down.
    const loaded: string[][] = [];
    const counting = Object.create(archive.store) as typeof archive.store;
    counting.loadIncidents = (ids) => {
      loaded.push([...ids]);
      return archive.store.loadIncidents(ids);
    };

    await vendor.setIncidents([feed[0]!, { ...feed[1]!, title: 'Two, edited' }, feed[2]!]);
    now += 60_000;
    const edited = await newPoller('h', { store: counting }).pollOnce();
    expect(edited.status !== 'skipped' && edited.events.map((e) => e.id)).toEqual(['32.r2.updated']);
    expect(loaded).toEqual([['32']]);

    // Another process rewrites incident 33 as the feed never showed it: its revision moved, so
    // the next poll diffs it again although the feed did not change it, and puts it back.
    await retitleElsewhere('33', 'Three, elsewhere');
    await vendor.setIncidents([{ ...feed[0]!, title: 'One, edited' }, { ...feed[1]!, title: 'Two, edited' }, feed[2]!]);
    loaded.length = 0;
    now += 60_000;
    const next = await newPoller('i', { store: counting }).pollOnce();
    expect(next.status !== 'skipped' && next.events.map((e) => e.id).sort()).toEqual(['31.r2.updated', '33.r3.updated']);
    expect(loaded.flat().sort()).toEqual(['31', '33']);
    expect((await archive.store.getIncident('33'))?.title).toBe('Three');
  });

  it('reads the revisions only of incidents the last diff did not keep while nothing was written since, and all of them after a write by another process', async () => {
    const feed = [rawIncident({ id: 41, title: 'One' }), rawIncident({ id: 42, title: 'Two' })];
    await vendor.setIncidents(feed);
    now += 1000;
    await newPoller('k').pollOnce();

    // The real store, with the ids whose revisions each poll reads written down.
    const read: string[][] = [];
    const counting = Object.create(archive.store) as typeof archive.store;
    counting.loadRevisions = (ids) => {
      read.push([...ids]);
      return archive.store.loadRevisions(ids);
    };
    const pollerOver = (name: string) =>
      createPoller({
        store: counting,
        feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
        clock,
        logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
        instanceId: name,
        newId: randomUUID,
      });

    // One incident edited: the last diff kept both revisions, and nothing has moved them since.
    await vendor.setIncidents([feed[0]!, { ...feed[1]!, title: 'Two, edited' }]);
    now += 60_000;
    const edited = await pollerOver('l').pollOnce();
    expect(edited.status !== 'skipped' && edited.events.map((e) => e.id)).toEqual(['42.r2.updated']);
    expect(read).toEqual([]);

    // A new incident: only its revision is read (it might be archived from long ago).
    read.length = 0;
    await vendor.setIncidents([feed[0]!, { ...feed[1]!, title: 'Two, edited' }, rawIncident({ id: 43, title: 'Three' })]);
    now += 60_000;
    const added = await pollerOver('m').pollOnce();
    expect(added.status !== 'skipped' && added.events.map((e) => e.id)).toEqual(['43.r1.created']);
    expect(read).toEqual([['43']]);

    // Another process rewrites incident 41: the archive moved since the last diff, so every
    // revision is read, and the edit is diffed and put back.
    const [archived] = (await archive.store.loadIncidents(['41'])).values();
    await archive.store.applyPoll({
      run: { id: randomUUID(), startedAt: now, finishedAt: now, outcome: 'ok', sources: [], changes: {} },
      plan: {
        writes: [
          {
            incident: { ...archived!, title: 'One, elsewhere' },
            previous: archived!,
            baseRevision: archived!.revision,
            revision: archived!.revision + 1,
            resolvedAt: archived!.resolvedAt,
          },
        ],
        events: [],
      },
      deliveries: [],
      seenIds: [],
      seenBefore: now,
      rejected: [],
      markSeeded: false,
    });
    read.length = 0;
    await vendor.setIncidents([feed[0]!, { ...feed[1]!, title: 'Two, edited again' }, rawIncident({ id: 43, title: 'Three' })]);
    now += 60_000;
    const next = await pollerOver('n').pollOnce();
    expect(next.status !== 'skipped' && next.events.map((e) => e.id).sort()).toEqual(['41.r3.updated', '42.r3.updated']);
    expect(read.flat().sort()).toEqual(['41', '42', '43']);
  });

  it("keeps the stored texts of a retitled incident's unchanged notes in its search row, edit after edit of one poller", async () => {
    const original = rawIncident({ id: 41, title: 'Texts' });
    await vendor.setIncidents([original]);
    expect((await newPoller('first').pollOnce()).status).toBe('ok');
    // The stored text stands for its note's body: a later title edit must not convert the body again.
    const poller = newPoller('texts');
    archive.sqlite.prepare(`UPDATE notes SET text = 'stored-' || key WHERE incident_id = '41'`).run();
    const searchNotes = () =>
      (archive.sqlite.prepare(`SELECT notes FROM incidents_fts WHERE rowid = (SELECT sort_key FROM incidents WHERE id = '41')`).get() as { notes: string })
        .notes;
    const stored = (archive.sqlite.prepare(`SELECT text FROM notes WHERE incident_id = '41' ORDER BY seq, key`).all() as { text: string }[])
      .map((n) => n.text)
      .join('\n\n');

    // The second edit plans against this poller's own copy of what the first one wrote.
    for (const title of ['Texts, edited', 'Texts, edited again']) {
      now += 60_000;
      await vendor.setIncidents([{ ...original, title }]);
      const edit = await poller.pollOnce();
      expect(edit.status !== 'skipped' && edit.events.map((e) => e.type)).toEqual(['incident.updated']);
      expect(searchNotes()).toBe(stored);
    }
  });

  it('digests the bodies and the changed incidents with the runtime’s hashes when given them', async () => {
    await vendor.setIncidents([rawIncident({ id: 51, title: 'Fifty-one' })]);
    let hashed = 0;
    const hashes: Hashes = {
      sha256: (data) => {
        hashed++;
        return nodeHashes.sha256(data);
      },
      hmacSha256: nodeHashes.hmacSha256,
    };
    now += 1000;
    const poller = newPoller('k', { hashes });
    const result = await poller.pollOnce();
    expect(result.status !== 'skipped' && result.events.map((e) => e.id)).toEqual(['51.r1.created']);
    // Two bodies and the one incident.
    expect(hashed).toBe(3);
  });

  it('keeps the digest of each body as the bytes it came in, not of its text encoded again', async () => {
    // The vendor's bodies, served with a byte-order mark: the text drops it, the bytes keep it.
    await vendor.setIncidents([rawIncident({ id: 61, title: 'Sixty-one' })]);
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const bodies = new Map<string, Buffer>();
    for (const path of [FEED_PATHS['v2/current'], FEED_PATHS['v2/history']]) {
      bodies.set(path, Buffer.concat([bom, Buffer.from(await (await fetch(vendor.url + path)).arrayBuffer())]));
    }
    const server = createServer((req, res) => {
      const body = bodies.get(req.url ?? '');
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      now += 1000;
      const result = await pollerOf({ ...vendor, url: `http://127.0.0.1:${port}` }, archive.store, clock, 'bom').pollOnce();
      expect(result.status !== 'skipped' && result.events.map((e) => e.id)).toEqual(['61.r1.created']);
      const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
      expect((await archive.store.lastDiff()).diffed?.sources.map((s) => [s.source, s.sha256])).toEqual([
        ['v2/current', sha256(bodies.get(FEED_PATHS['v2/current'])!)],
        ['v2/history', sha256(bodies.get(FEED_PATHS['v2/history'])!)],
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refreshes last_seen_at only when it is older than its precision', async () => {
    const poller = newPoller('c');
    const seen = async () => (await archive.store.getIncident('1'))!.lastSeenAt;
    await vendor.setIncidents([rawIncident({ id: 1 }), rawIncident({ id: 2, title: 'Second' })]);
    now += 1000;
    await poller.pollOnce();
    const first = await seen();
    now += 60_000;
    await vendor.setIncidents([rawIncident({ id: 1 }), rawIncident({ id: 2, title: 'Second, edited' })]);
    await poller.pollOnce();
    expect(await seen()).toBe(first); // 1 was not rewritten for 2's change
    now += LAST_SEEN_PRECISION_MS;
    await poller.pollOnce(); // unchanged feed, but due for a full diff
    expect(await seen()).toBe(now);
  });

  it('skips the last_seen_at refresh in a diff soon after one that covered its incidents, and never lets last_seen_at age past its precision', async () => {
    // The real store, with the ids each write refreshes written down.
    const refreshed: string[][] = [];
    const counting = Object.create(archive.store) as typeof archive.store;
    counting.applyPoll = (input) => {
      refreshed.push([...input.seenIds].sort());
      return archive.store.applyPoll(input);
    };
    const poller = newPoller('seen', { store: counting });
    const lastSeen = async (id: string) => (await archive.store.getIncident(id))!.lastSeenAt;
    const one = rawIncident({ id: 71, title: 'One' });
    let title = 'Two';
    const two = () => rawIncident({ id: 72, title });
    const edit = async (minutes: number, more: ReturnType<typeof rawIncident>[] = []) => {
      title += ', edited';
      await vendor.setIncidents([one, two(), ...more]);
      now += minutes * 60_000;
      const result = await poller.pollOnce();
      expect(result.status !== 'skipped' && result.events.length).toBeGreaterThan(0);
      // Whatever each diff skipped: an incident the feed shows is never seen longer ago than this.
      expect(now - (await lastSeen('71'))).toBeLessThan(LAST_SEEN_PRECISION_MS);
      return refreshed.at(-1);
    };

    await vendor.setIncidents([one, two()]);
    now += 1000;
    await poller.pollOnce();
    const first = await lastSeen('71');
    expect(refreshed.at(-1)).toEqual(['71', '72']);

    expect(await edit(1)).toEqual([]); // a minute later, of the same incidents: skipped
    expect(await edit(3)).toEqual([]); // four minutes after the refresh
    expect(await lastSeen('71')).toBe(first);
    // An incident the refresh did not cover makes the diff refresh them all.
    expect(await edit(0.5, [rawIncident({ id: 73, title: 'Three' })])).toEqual(['71', '72', '73']);
    expect(await edit(1, [rawIncident({ id: 73, title: 'Three' })])).toEqual([]);
    // Half the precision after the last refresh, the diff refreshes again.
    expect(await edit(4, [rawIncident({ id: 73, title: 'Three' })])).toEqual(['71', '72', '73']);
    expect(await lastSeen('71')).toBe(now);

    const refreshedAt = now;

    // The same bodies skip the diff for up to the precision after that refresh (not after the
    // last diff, which skipped it), then are diffed and refreshed.
    expect(await edit(1, [rawIncident({ id: 73, title: 'Three' })])).toEqual([]);
    const writes = refreshed.length;
    now = refreshedAt + LAST_SEEN_PRECISION_MS - 1000;
    expect(await poller.pollOnce()).toMatchObject({ status: 'ok', unchanged: true });
    expect(refreshed).toHaveLength(writes);
    now = refreshedAt + LAST_SEEN_PRECISION_MS + 1000;
    expect(await poller.pollOnce()).toMatchObject({ status: 'ok', unchanged: false });
    expect(refreshed.at(-1)).toEqual(['71', '72', '73']);
    expect(await lastSeen('71')).toBe(now);
  });
});

describe('poller, when the vendor changes more incidents than one poll may write', () => {
  const BUDGET = 4;
  let vendor: TestVendor;
  let archive: TempArchive;
  let now = Date.UTC(2026, 10, 22, 10, 0, 0);
  const clock: Clock = { now: () => now };
  const logged: string[] = [];

  const newPoller = () =>
    pollerOf(vendor, archive.store, clock, 'budget', {
      logger: createConsoleLogger({ level: 'warn', format: 'json', write: (line) => void logged.push(line) }),
      maxIncidentWrites: BUDGET,
    });

  /** Polls until a poll writes nothing; returns each poll's result. */
  const pollUntilCurrent = async (poller: Poller) => {
    const results: Exclude<PollResult, { status: 'skipped' }>[] = [];
    for (let i = 0; i < 20; i++) {
      now += 60_000;
      const result = await poller.pollOnce();
      if (result.status === 'skipped') throw new Error('skipped');
      if (result.events.length === 0) return results;
      results.push(result);
    }
    throw new Error('the archive never caught up');
  };

  // Ten incidents the vendor published, each with its own update time; 3 and 8 still going on.
  const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const published = (title: (id: number) => string) =>
    ids.map((id) =>
      rawIncident({
        id,
        title: title(id),
        status: id === 3 || id === 8 ? 'active' : 'resolved',
        date_created: `2026-10-${String(id).padStart(2, '0')}T05:00:00-07:00`,
        date_updated: `2026-10-${String(id).padStart(2, '0')}T06:00:00-07:00`,
        notes: [{ body: `<p>Incident ${id}</p>`, date_created: `2026-10-${String(id).padStart(2, '0')}T05:00:00-07:00` }],
      }),
    );

  beforeAll(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
  });
  afterAll(async () => {
    archive.remove();
    await vendor.close();
  });

  it('backfills a history larger than the budget over several polls, every incident once, all of it as backfill', async () => {
    await vendor.setIncidents(published((id) => `Incident ${id}`));
    const poller = newPoller();
    const polls = await pollUntilCurrent(poller);

    expect(polls.map((p) => p.events.length)).toEqual([4, 4, 2]);
    expect(polls.map((p) => p.run.pendingIncidents)).toEqual([6, 2, undefined]);
    const eventIds = polls.flatMap((p) => p.events.map((e) => e.id));
    expect(eventIds.sort()).toEqual(ids.map((id) => `${id}.r1.created`).sort());
    // Until the whole history is in, it is history: nothing of it may be announced as news.
    expect(polls.flatMap((p) => p.events).every((e) => e.backfill)).toBe(true);
    // The run history says the first poll was capped, and one line of log said so.
    expect((await archive.store.getPollRun(polls[0]!.run.id))?.run.pendingIncidents).toBe(6);
    expect(logged.filter((line) => line.includes('poll capped'))).toHaveLength(2);
  });

  it('applies an edit of every incident over several polls while the feed stays the same, each event once', async () => {
    await vendor.setIncidents(published((id) => `Incident ${id}, edited`));
    const polls = await pollUntilCurrent(newPoller());

    expect(polls.map((p) => p.events.length)).toEqual([4, 4, 2]);
    const eventIds = polls.flatMap((p) => p.events.map((e) => e.id));
    expect(eventIds.sort()).toEqual(ids.map((id) => `${id}.r2.updated`).sort());
    expect(polls.flatMap((p) => p.events).every((e) => !e.backfill)).toBe(true);
    // The ongoing incidents (3 and 8) went first.
    expect(polls[0]!.events.map((e) => e.incidentId)).toEqual(expect.arrayContaining(['3', '8']));

    // The archive holds each event of the scenario exactly once.
    const stored = await archive.store.listEvents({}, 0, 1000);
    const expected = [...ids.map((id) => `${id}.r1.created`), ...ids.map((id) => `${id}.r2.updated`)];
    expect(stored.map((e) => e.id).sort()).toEqual(expected.sort());
    for (const id of ids) expect((await archive.store.getIncident(String(id)))?.title).toBe(`Incident ${id}, edited`);
  });
});

describe('poller, when the vendor sends thousands of malformed entries', () => {
  it('skips them all, keeps the good ones with their times, and logs one bounded line', async () => {
    const vendor = await startTestVendor();
    const archive = openTempArchive();
    const lines: string[] = [];
    try {
      const now = Date.UTC(2026, 10, 22, 10, 0, 0);
      const poller = createPoller({
        store: archive.store,
        feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 5000, maxBytes: 5_000_000, userAgent: 'test', clock: { now: () => now } }),
        clock: { now: () => now },
        logger: createConsoleLogger({ level: 'warn', format: 'json', write: (line) => void lines.push(line) }),
        instanceId: 'malformed',
        newId: randomUUID,
      });
      // Served raw: the simulated vendor's world holds only incidents it can read itself.
      const bad = ['+99:99', '+2400', '-07:60'];
      const history = [
        rawIncident({ id: 1 }),
        ...Array.from({ length: 2000 }, (_, i) => rawIncident({ id: 100 + i, date_updated: `2026-10-01T05:56:59${bad[i % 3]}` })),
        rawIncident({ id: '9'.repeat(400) }),
        rawIncident({ id: 2, date_created: '0050-10-01T05:39:35-07:00' }),
      ];
      await vendor.fault({ target: 'v2/history', kind: 'body', body: JSON.stringify(history) });
      const result = await poller.pollOnce();
      expect(result.status !== 'skipped' && result.events.map((e) => e.id)).toEqual(['1.r1.created']);
      expect((await archive.store.getIncident('1'))?.dateCreated.ms).toBe(Date.UTC(2026, 9, 1, 12, 39, 35));
      const warnings = lines.filter((line) => line.includes('skipped malformed incidents'));
      expect(warnings.length).toBeGreaterThan(0);
      for (const line of warnings) expect(line.length).toBeLessThan(5_000);
      expect(warnings.some((line) => JSON.parse(line).skipped === 2002)).toBe(true);
    } finally {
      archive.remove();
      await vendor.close();
    }
  });
});
