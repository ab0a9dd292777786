/** Every vendor fault the simulated vendor can inject: clear errors, nothing lost, no false event. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { ADMIN_TOKEN, startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';

const files = rawIncident({ id: 1700, title: 'Files fail to upload', type: 'incident', services: ['Files'] });
const outage = rawIncident({ id: 1701, title: 'Messaging is down', type: 'outage', services: ['Messaging'] });

describe('vendor faults', () => {
  let vendor: TestVendor;
  let service: TestService;

  beforeAll(async () => {
    vendor = await startTestVendor();
    service = await startTestService(vendor.url, { env: { POLL_TIMEOUT_MS: '1000', FEED_MAX_BYTES: '1000000' } });
    await vendor.setIncidents([files, outage]);
    expect((await service.poll()).outcome).toBe('ok');
  });
  afterAll(async () => {
    await service.close();
    await vendor.close();
  });
  beforeEach(async () => {
    await vendor.clearFaults();
  });

  const rejectedPayloads = () => {
    const db = new Database(join(service.dir, 'archive.db'), { readonly: true });
    try {
      return db
        .prepare(
          'SELECT r.source, b.body, r.error FROM poll_run_rejections r JOIN rejected_body_texts b ON b.hash = r.body_hash ORDER BY r.received_ms, r.rowid',
        )
        .all() as { source: string; body: string; error: string }[];
    } finally {
      db.close();
    }
  };

  it('falls back to v1 when v2 current fails, and concludes nothing from v1 showing one incident', async () => {
    await vendor.fault({ target: 'v2/current', kind: 'status', status: 500 });
    await vendor.fault({ target: 'v2/history', kind: 'status', status: 503 });
    const result = await service.poll();
    expect(result.outcome).toBe('partial');
    expect(result.run.sources.map((s: { source: string; http_status?: number }) => [s.source, s.http_status])).toEqual([
      ['v2/current', 500],
      ['v1/current', 200],
      ['v2/history', 503],
    ]);
    expect(result.events).toEqual([]); // v1 showed only the outage: the files incident is not "resolved"
    const v2 = await service.get('/api/v2.0.0/current');
    expect(v2.body.active_incidents.map((i: { id: number }) => i.id).sort()).toEqual([1700, 1701]);
  });

  it('falls back to v1 when v2 is missing altogether (404) and records what v1 shows', async () => {
    await vendor.fault({ target: 'v2/current', kind: 'missing' });
    await vendor.setIncidents([files, { ...outage, title: 'Messaging is down for everyone' }]);
    const result = await service.poll();
    expect(result.outcome).toBe('partial');
    expect(result.events.map((e: { type: string; incident_id: string }) => [e.type, e.incident_id])).toEqual([['incident.updated', '1701']]);
  });

  it('records a resolution only once it can be seen, not when an incident leaves current', async () => {
    const resolved: RawIncident = {
      ...files,
      status: 'resolved',
      date_updated: '2026-10-01T08:00:00-07:00',
      notes: [...files.notes, { body: '<p>Fixed.</p>', date_created: '2026-10-01T08:00:00-07:00' }],
    };
    await vendor.setIncidents([resolved, { ...outage, title: 'Messaging is down for everyone' }]);
    await vendor.fault({ target: 'v2/history', kind: 'status', status: 502 });
    const blind = await service.poll();
    expect(blind.outcome).toBe('partial');
    expect(blind.events).toEqual([]); // current no longer lists 1700, history could not say why
    expect((await service.get('/api/incidents/1700')).body.incident.status).toBe('active');

    await vendor.clearFaults();
    const seeing = await service.poll();
    expect(seeing.outcome).toBe('ok');
    expect(seeing.events.map((e: { type: string }) => e.type).sort()).toEqual(['incident.note_added', 'incident.status_changed']);
  });

  it.each([
    ['timeout', /no complete answer within 1000 ms/],
    ['slow', /no complete answer within 1000 ms|terminated|aborted/],
    ['oversize', /exceeds the 1000000-byte limit/],
    ['status', /HTTP 500/],
  ])('a %s on every endpoint fails the poll with a clear error and changes nothing', async (kind, message) => {
    // Read once first: a failure repeating the previous one is logged only at debug level.
    await vendor.clearFaults();
    await service.poll();
    await vendor.fault({ target: '*', kind, ...(kind === 'slow' ? { delayMs: 3000 } : {}) });
    const before = (await service.get('/api/events?limit=1000')).body.events.length;
    const result = await service.poll();
    expect(result.outcome).toBe('failed');
    expect(result.run.error).toMatch(message);
    expect(result.events).toEqual([]);
    expect((await service.get('/api/events?limit=1000')).body.events.length).toBe(before);
    expect(service.logs.at(-1)).toMatch(/"level":"error","msg":"poll failed"/);
  });

  it.each([
    ['malformed', /invalid JSON/],
    ['html', /invalid JSON/],
    ['not-feed', /not a feed: expected an object with status and active_incidents\[\], got an object with keys error/],
  ])('keeps a %s payload raw for inspection and changes nothing', async (kind, message) => {
    await vendor.fault({ target: '*', kind });
    const before = rejectedPayloads().length;
    const result = await service.poll();
    expect(result.outcome).toBe('failed');
    expect(result.events).toEqual([]);
    const kept = rejectedPayloads().slice(before);
    expect(kept.map((r) => r.source)).toEqual(['v2/current', 'v1/current', 'v2/history']);
    expect(kept[0]?.error).toMatch(message);
    expect(kept[0]?.body.length).toBeGreaterThan(0);
    // And an admin can read them back, with the run they belong to.
    const detail = await fetch(`${service.url}/api/admin/polls/${result.run.id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = await detail.json();
    expect(body.poll).toMatchObject({ id: result.run.id, outcome: 'failed' });
    expect(body.rejected_payloads.map((r: { source: string; body: string }) => [r.source, r.body])).toEqual(kept.map((r) => [r.source, r.body]));
  });

  it('counts consecutive failures on /healthz and resets them on recovery', async () => {
    await vendor.fault({ target: '*', kind: 'status', status: 500 });
    await service.poll();
    await service.poll();
    const failing = await service.get('/healthz');
    expect(failing.body.consecutive_failures).toBeGreaterThanOrEqual(2);
    expect(failing.body.last_poll.outcome).toBe('failed');
    await vendor.clearFaults();
    await service.poll();
    const healthy = await service.get('/healthz');
    expect(healthy).toMatchObject({ status: 200, body: { ok: true, status: 'ok', consecutive_failures: 0 } });
  });

  it('follows a redirect to the real body', async () => {
    await vendor.fault({ target: 'v2/current', kind: 'redirect', times: 1 });
    const result = await service.poll();
    expect(result.outcome).toBe('ok');
    expect(result.run.sources[0].url).toContain('/_sim/redirected/');
  });
});

describe('a vendor that moved hosts', () => {
  it('is read through its redirect (STATUS_URL pointing at the old address)', async () => {
    const vendor = await startTestVendor();
    const service = await startTestService(`${vendor.url}/moved`);
    try {
      await vendor.setIncidents([files]);
      const result = await service.poll();
      expect(result.outcome).toBe('ok');
      expect(result.events).toHaveLength(1);
      expect(result.run.sources[0].url).toBe(`${vendor.url}/api/v2.0.0/current`);
    } finally {
      await service.close();
      await vendor.close();
    }
  });
});
