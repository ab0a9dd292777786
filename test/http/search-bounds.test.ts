/**
 * What one search may cost: the shapes an anonymous client can send are refused with
 * the rule they broke, or bounded, over a real SQLite archive served by the real app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_LIMITS } from '../../src/core/search-query.ts';
import { createApp } from '../../src/http/app.ts';
import { seedDirect } from '../bench/seed.ts';
import { parsed, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { nodeAppPorts } from '../helpers/node-app-ports.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';

const DAY_MS = 86_400_000;
const FIRST_DAY_MS = Date.UTC(2010, 0, 1, 12);
/** More incidents mention "degraded" than one search may examine; only the oldest of them is a Calls incident. */
const DEGRADED = SEARCH_LIMITS.maxMatchesExamined + 200;

function vendorTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

function archiveIncidents(): RawIncident[] {
  const raws: RawIncident[] = [];
  for (let i = 0; i < DEGRADED; i++) {
    const at = vendorTime(FIRST_DAY_MS + i * DAY_MS);
    raws.push(
      rawIncident({
        id: 10_000 + i,
        title: i === 0 ? 'Calls dropping' : `Slow messages ${i}`,
        status: 'resolved',
        services: [i === 0 ? 'Calls' : 'Messaging'],
        date_created: at,
        date_updated: at,
        notes: [{ body: '<p>Some users see degraded performance.</p>', date_created: at }],
      }),
    );
  }
  const at = vendorTime(FIRST_DAY_MS + DEGRADED * DAY_MS);
  raws.push(
    rawIncident({
      id: 9,
      title: 'Sign-in failures',
      status: 'resolved',
      services: ['Login/SSO'],
      date_created: at,
      date_updated: at,
      notes: [{ body: '<p>Kerberos identity providers are affected; a zeppelin of errors.</p>', date_created: at }],
    }),
  );
  return raws;
}

describe('bounded search', () => {
  let archive: TempArchive;
  let request: (path: string) => Promise<Response>;

  beforeAll(async () => {
    archive = openTempArchive(tempDir());
    seedDirect(archive.sqlite, parsed(...archiveIncidents()), Date.now());
    const poller = { pollOnce: async () => ({ status: 'skipped' as const, reason: 'another poll is running' as const }) };
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const app = createApp(await buildAppDeps({ ...(await nodeAppPorts(archive.connection, logger)), poller }));
    request = async (path) => app.request(`http://localhost${path}`);
  });
  afterAll(() => archive.remove());

  const api = async (q: string, extra = '') => {
    const response = await request(`/api/incidents?q=${encodeURIComponent(q)}${extra}`);
    return { status: response.status, body: (await response.json()) as { ok: boolean; error?: string; detail?: string; incidents?: { id: string }[] } };
  };

  it('refuses the known attack, twelve one-letter prefixes, saying the rule', async () => {
    const { status, body } = await api('a e i o u s t r n l c d');
    expect(status).toBe(400);
    expect(body).toEqual({ ok: false, error: 'invalid_query', detail: 'q: a search has at most 8 words; this one has 12' });
  });

  it('refuses a ninth word instead of dropping words silently: all words must match', async () => {
    // Eight words that all occur in incident 9, then one that occurs nowhere: no incident has all nine.
    const { status, body } = await api('kerberos identity providers are affected a zeppelin of nowhere');
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_query');
    expect((await api('kerberos identity providers are affected a zeppelin of')).body.incidents?.map((i) => i.id)).toEqual(['9']);
  });

  it('refuses a search longer than the search box allows', async () => {
    const { status, body } = await api('kerberos '.repeat(30));
    expect(status).toBe(400);
    expect(body).toMatchObject({ ok: false, error: 'invalid_query', detail: expect.stringMatching(/at most 200 characters/) });
  });

  it('matches a short last word whole, and a last word of three letters or more as a prefix too', async () => {
    expect((await api('z')).body.incidents).toEqual([]);
    expect((await api('ze')).body.incidents).toEqual([]);
    expect((await api('zep')).body.incidents?.map((i) => i.id)).toEqual(['9']);
    expect((await api('kerb')).body.incidents?.map((i) => i.id)).toEqual(['9']);
    // Stems still match in every position: "affect" is how "affected" is indexed.
    expect((await api('affect kerberos')).body.incidents?.map((i) => i.id)).toEqual(['9']);
  });

  it('refuses a common word with a filter that leaves almost none of its matches, and says how to narrow it', async () => {
    const { status, body } = await api('degraded', '&service=Calls');
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_query');
    expect(body.detail).toMatch(new RegExp(`more than ${SEARCH_LIMITS.maxMatchesExamined} incidents contain these words.*narrow the dates`));
    // Narrowed by date, as the answer says, the same search finds the one incident.
    const narrowed = await api('degraded', `&service=Calls&until=${vendorTime(FIRST_DAY_MS + 100 * DAY_MS).slice(0, 10)}`);
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.incidents?.map((i) => i.id)).toEqual(['10000']);
  });

  it('answers a search at most 100 incidents a page, and pages a common word on without a filter', async () => {
    type Page = { incidents: { id: string }[]; response_metadata: { next_cursor: string } };
    const first = await request('/api/incidents?q=degraded&limit=1000');
    const body = (await first.json()) as Page;
    expect(first.status).toBe(200);
    expect(body.incidents).toHaveLength(100);
    const next = await request(`/api/incidents?q=degraded&limit=1000&cursor=${encodeURIComponent(body.response_metadata.next_cursor)}`);
    const second = (await next.json()) as Page;
    // The newest incidents mention degraded in order: ids 10000 + DEGRADED - 1 downwards.
    expect(second.incidents.map((i) => Number(i.id))).toEqual(Array.from({ length: 100 }, (_, i) => 10_000 + DEGRADED - 101 - i));
    // A list without q keeps its larger pages.
    expect(((await (await request('/api/incidents?limit=1000')).json()) as Page).incidents).toHaveLength(1000);
  });

  it('shows the refusals on the /incidents page, with the form to fix them', async () => {
    for (const [path, message] of [
      [`/incidents?q=${encodeURIComponent('a e i o u s t r n l c d')}`, 'a search has at most 8 words; this one has 12'],
      ['/incidents?q=degraded&service=Calls', 'The search is too broad'],
    ] as const) {
      const page = await request(path);
      const html = await page.text();
      expect(page.status, path).toBe(400);
      expect(html, path).toContain(message);
      expect(html, path).toContain('<form method="get" action="/incidents"');
    }
  });
  it('counts a broad list no further than 1,000 matches, saying the total is a floor, so the count never costs more than the page', async () => {
    // Over 5,000 Messaging incidents: counting them all (or 10,000 of a larger archive) took longer than reading the page.
    const response = await request('/api/incidents?service=Messaging&limit=10');
    const body = (await response.json()) as { total: number; total_exact: boolean; incidents: unknown[] };
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ total: 1000, total_exact: false });
    expect(body.incidents).toHaveLength(10);
    expect(await (await request('/incidents?service=Messaging')).text()).toContain('At least 1,000 incidents matching');
    // Below the bound the count stays exact.
    expect(await (await request('/api/incidents?service=Calls')).json()).toMatchObject({ total: 1, total_exact: true });
  });
});
