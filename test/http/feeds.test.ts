/** The Atom, RSS and JSON feeds through the service's app over an archive seeded with the scenario's incidents (seed-archive.ts): spec elements, filters, hostile vendor text, caching. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

const pad = (n: number) => String(n).padStart(2, '0');
const SERVICES = ['Files', 'Messaging', 'Search'];

/** 55 resolved incidents, one a day from 2026-03-01, each updated an hour after it began. */
function pastIncidents(): RawIncident[] {
  return Array.from({ length: 55 }, (_, i) => {
    const day = new Date(Date.UTC(2026, 2, 1 + i));
    const date = (hour: number) => `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}T${pad(hour)}:00:00-08:00`;
    return rawIncident({
      id: 1000 + i,
      title: `Past incident ${i}`,
      status: 'resolved',
      services: [SERVICES[i % SERVICES.length]!],
      date_created: date(9),
      date_updated: date(10),
      notes: [
        { body: '<p>Investigating.</p>', date_created: date(9) },
        { body: `<p>Resolved <strong>${i}</strong>.</p>`, date_created: date(10) },
      ],
    });
  });
}

/** Created before all the others, still going on, updated last of all: a feed shows it first. */
const longRunning = rawIncident({
  id: 900,
  title: 'Huddles drop after a few minutes',
  type: 'outage',
  status: 'active',
  services: ['Huddles'],
  date_created: '2026-02-01T09:00:00-08:00',
  date_updated: '2026-11-20T09:00:00-08:00',
  notes: [{ body: '<p>Still investigating.</p>\n<p>Next update in an hour.</p>', date_created: '2026-11-20T09:00:00-08:00' }],
});

const SCRIPT = '<script>alert(1)</script>';
/** Everything a vendor could send that has broken feeds: markup, CDATA ends, ampersands, control characters. */
const hostile = rawIncident({
  id: 1700,
  title: `${SCRIPT} ]]> Files & uploads ]]> \u0000fail\u001b[31m \uFFFE`,
  status: 'active',
  url: 'javascript:alert(1)',
  services: ['Files', `<b>Evil</b> & "Co" ]]>\u0000\u001b`],
  date_created: '2026-11-19T01:00:00-08:00',
  date_updated: '2026-11-19T02:00:00-08:00',
  notes: [
    {
      body: `<p>Fixed &amp; <a href="javascript:alert(1)">verified</a> ${SCRIPT} ]]> <img src=x onerror=alert(1)> done\u0000\u001b\u0007</p>`,
      date_created: '2026-11-19T02:00:00-08:00',
    },
  ],
});

/** A 2019-style note: plain text, where "<" is just a character. */
const plainTextNote = rawIncident({
  id: 800,
  title: 'Slow search',
  status: 'resolved',
  services: ['Search'],
  date_created: '2019-05-01T09:00:00-07:00',
  date_updated: '2019-05-01T10:00:00-07:00',
  notes: [{ body: 'Latency < 5s & falling <for now>', date_created: '2019-05-01T10:00:00-07:00' }],
});

const xmlParser = (arrays: string[]) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    // For the RSS profile's hexadecimal references (&#x3C;); strictXml allows no named HTML entity.
    htmlEntities: true,
    isArray: (name) => arrays.includes(name),
  });
const atomParser = xmlParser(['entry', 'link', 'category']);
const rssParser = xmlParser(['item', 'category', 'atom:link']);

const ATOM_TAGS = new Set(['feed', 'id', 'title', 'subtitle', 'updated', 'link', 'author', 'name', 'generator', 'entry', 'published', 'category', 'content']);
const RSS_TAGS = new Set([
  'rss',
  'channel',
  'title',
  'link',
  'description',
  'atom:link',
  'lastBuildDate',
  'docs',
  'generator',
  'item',
  'guid',
  'pubDate',
  'category',
]);

/**
 * fast-xml-parser's validator passes `<` in attribute values, `]]>` in text, control characters
 * and undefined entities: well-formedness (XML 1.0) is checked here as well.
 */
function strictXml(doc: string, tags: Set<string>): void {
  expect(XMLValidator.validate(doc)).toBe(true);
  expect(doc.startsWith('<?xml version="1.0" encoding="utf-8"?>\n')).toBe(true);
  // Only XML 1.0 Chars (and no C1 controls, which it discourages).
  expect(doc).not.toMatch(/[^\t\n\r\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
  expect(doc).not.toContain(']]>');
  expect(doc).not.toContain('<![CDATA[');
  // Every reference is one of XML's five or the RSS profile's three.
  expect(doc.replace(/&(amp|lt|gt|quot|apos|#x26|#x3C|#x3E);/g, '')).not.toContain('&');
  // Every `<` opens one of the format's own elements: nothing vendor-made became markup.
  const names = [...doc.slice(doc.indexOf('?>') + 2).matchAll(/<\/?([^\s/>]*)/g)].map((m) => m[1]!);
  expect(names.filter((name) => !tags.has(name))).toEqual([]);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const RFC822 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const UUID_URN = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Fetched = { status: number; headers: Headers; body: string };

describe('feeds', () => {
  let service: TestApp;

  const fetchFeed = async (path: string, headers: Record<string, string> = {}): Promise<Fetched> => {
    const res = await service.fetch(service.url + path, { headers });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };
  const atom = async (query = '') => {
    const res = await fetchFeed(`/feed.atom${query}`);
    expect(res.status).toBe(200);
    strictXml(res.body, ATOM_TAGS);
    return atomParser.parse(res.body).feed;
  };
  const rss = async (query = '') => {
    const res = await fetchFeed(`/feed.rss${query}`);
    expect(res.status).toBe(200);
    strictXml(res.body, RSS_TAGS);
    return rssParser.parse(res.body).rss;
  };
  const jsonFeed = async (query = '') => {
    const res = await fetchFeed(`/feed.json${query}`);
    expect(res.status).toBe(200);
    return JSON.parse(res.body);
  };
  const entryFor = (feed: any, incidentId: string) => feed.entry.find((e: any) => e.link[0]['@href'].endsWith(`/incidents/${incidentId}`));

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL);
    expect((await seedArchive(service.store, [longRunning, hostile, plainTextNote, ...pastIncidents()])).events).toHaveLength(58);
  });
  afterAll(async () => {
    await service.close();
  });

  it('answers each format with its media type', async () => {
    expect((await fetchFeed('/feed.atom')).headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect((await fetchFeed('/feed.rss')).headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    expect((await fetchFeed('/feed.json')).headers.get('content-type')).toBe('application/feed+json; charset=utf-8');
  });

  it('serves Atom 1.0 with the elements RFC 4287 requires, the 50 latest updated incidents first', async () => {
    const feed = await atom('?service=Files,Huddles,Messaging,Search');
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toMatch(UUID_URN);
    expect(feed.title).toMatchObject({ '#text': 'statuswatch: incidents affecting Files, Huddles, Messaging, Search', '@type': 'text' });
    expect(feed.author.name).toBe('statuswatch');
    expect(feed.link).toEqual(
      expect.arrayContaining([{ '@rel': 'self', '@type': 'application/atom+xml', '@href': `${service.url}/feed.atom?service=Files,Huddles,Messaging,Search` }]),
    );

    expect(feed.entry).toHaveLength(50);
    for (const entry of feed.entry) {
      expect(entry.id).toMatch(UUID_URN);
      expect(entry.title['#text']).toMatch(/^\[[A-Z]\w* · \w+\] /);
      expect(entry.updated).toMatch(RFC3339);
      expect(entry.published).toMatch(RFC3339);
      expect(entry.link[0]).toMatchObject({ '@rel': 'alternate', '@href': expect.stringMatching(new RegExp(`^${service.url}/incidents/\\d+$`)) });
    }
    expect(new Set(feed.entry.map((e: any) => e.id)).size).toBe(50);
    const updated = feed.entry.map((e: any) => e.updated);
    expect(updated).toEqual([...updated].sort().reverse());
    expect(feed.updated).toBe(updated[0]);

    // Oldest created of all, updated last: first. Then the hostile one, then the latest past ones.
    const [first, second, third] = feed.entry;
    expect(first).toMatchObject({
      title: { '#text': '[Outage · active] Huddles: Huddles drop after a few minutes' },
      published: '2026-02-01T17:00:00Z',
      updated: '2026-11-20T17:00:00Z',
      category: [{ '@term': 'Huddles' }],
      content: { '@type': 'text', '#text': 'Still investigating.\n\nNext update in an hour.' },
    });
    expect(first.link).toContainEqual({ '@rel': 'related', '@type': 'text/html', '@href': 'https://slack-status.com/2026-10/6c28dfb7b670dc02' });
    expect(second.link[0]['@href']).toBe(`${service.url}/incidents/1700`);
    expect(third.title['#text']).toBe('[Incident · resolved] Files: Past incident 54');
    expect(third.content['#text']).toBe('Resolved 54.');
    // 58 incidents, 50 items: the 2019 one and the earliest past ones are left out.
    expect(entryFor(feed, '800')).toBeUndefined();
  });

  it('serves RSS 2.0 with channel title, link, description and items with guid and RFC 822 dates', async () => {
    const { channel, ...root } = await rss();
    expect(root['@version']).toBe('2.0');
    expect(channel).toMatchObject({
      title: 'statuswatch: incidents',
      link: `${service.url}/`,
      description: expect.any(String),
      lastBuildDate: 'Fri, 20 Nov 2026 17:00:00 GMT',
    });
    expect(channel['atom:link']).toEqual([{ '@rel': 'self', '@type': 'application/rss+xml', '@href': `${service.url}/feed.rss` }]);
    expect(channel.item).toHaveLength(50);
    for (const item of channel.item) {
      expect(item.title).toMatch(/^\[[A-Z]\w* · \w+\] /);
      expect(item.link).toMatch(new RegExp(`^${service.url}/incidents/\\d+$`));
      expect(item.guid).toMatchObject({ '@isPermaLink': 'false', '#text': expect.stringMatching(UUID_URN) });
      expect(item.pubDate).toMatch(RFC822);
    }
    expect(channel.item[0]).toMatchObject({
      title: '[Outage · active] Huddles: Huddles drop after a few minutes',
      pubDate: 'Fri, 20 Nov 2026 17:00:00 GMT',
      category: ['Huddles'],
      // HTML, as RSS readers expect in a description: the note's text, escaped.
      description: '<p>Still investigating.</p><p>Next update in an hour.</p>',
    });
  });

  it('serves JSON Feed 1.1', async () => {
    const feed = await jsonFeed();
    expect(feed).toMatchObject({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'statuswatch: incidents',
      home_page_url: `${service.url}/`,
      feed_url: `${service.url}/feed.json`,
      authors: [{ name: 'statuswatch' }],
    });
    expect(feed.items).toHaveLength(50);
    for (const item of feed.items) {
      expect(typeof item.id).toBe('string');
      expect(item.url).toMatch(new RegExp(`^${service.url}/incidents/\\d+$`));
      expect(typeof item.title).toBe('string');
      expect(typeof item.content_text).toBe('string');
      expect(item.date_published).toMatch(RFC3339);
      expect(item.date_modified).toMatch(RFC3339);
    }
    expect(feed.items[0]).toEqual({
      id: expect.stringMatching(UUID_URN),
      url: `${service.url}/incidents/900`,
      external_url: 'https://slack-status.com/2026-10/6c28dfb7b670dc02',
      title: '[Outage · active] Huddles: Huddles drop after a few minutes',
      content_text: 'Still investigating.\n\nNext update in an hour.',
      date_published: '2026-02-01T17:00:00Z',
      date_modified: '2026-11-20T17:00:00Z',
      tags: ['Huddles'],
    });
  });

  it('gives one item the same id in all three formats', async () => {
    const [a, r, j] = await Promise.all([atom(), rss(), jsonFeed()]);
    expect(r.channel.item.map((i: any) => i.guid['#text'])).toEqual(a.entry.map((e: any) => e.id));
    expect(j.items.map((i: any) => i.id)).toEqual(a.entry.map((e: any) => e.id));
  });

  it('filters by service, repeated or comma-separated, in every format', async () => {
    const files = await atom('?service=Files');
    expect(files.entry.length).toBe(20); // the hostile one and 19 past ones
    expect(files.entry.every((e: any) => e.category.some((c: any) => c['@term'] === 'Files'))).toBe(true);
    expect(files.title['#text']).toBe('statuswatch: incidents affecting Files');

    const both = await rss('?service=Huddles&service=Search');
    expect(both.channel.item.map((i: any) => i.category)).toEqual(expect.arrayContaining([['Huddles'], ['Search']]));
    expect(both.channel.item).toHaveLength(1 + 18 + 1);
    expect((await jsonFeed('?service=Huddles,Search')).items.map((i: any) => i.id)).toEqual(both.channel.item.map((i: any) => i.guid['#text']));
    expect(both.channel.item.at(-1)).toMatchObject({ title: '[Incident · resolved] Search: Slow search', pubDate: 'Wed, 01 May 2019 17:00:00 GMT' });
    // A plain-text note keeps its "<" as text, escaped twice in HTML within XML.
    expect(both.channel.item.at(-1).description).toBe('<p>Latency &lt; 5s &amp; falling &lt;for now&gt;</p>');
  });

  it('answers an unknown service with a valid empty feed, and junk never fails', async () => {
    const empty = await atom('?service=Nope');
    expect(empty.entry).toBeUndefined();
    expect(empty.updated).toBe('1970-01-01T00:00:00Z');
    expect((await rss('?service=Nope')).channel.item).toBeUndefined();
    expect((await jsonFeed('?service=Nope')).items).toEqual([]);

    const junk = [
      '?service=',
      '?service=,,,',
      '?service=%00%1b%EF%BF%BE',
      '?service=%ED%A0%80&service=%E0%A4%A',
      `?service=${encodeURIComponent(`${SCRIPT}]]>&"'`)}`,
      `?service=${Array.from({ length: 2000 }, (_, i) => `s${i}`).join(',')}`,
    ];
    for (const query of junk) {
      await atom(query);
      await rss(query);
      expect(Array.isArray((await jsonFeed(query)).items)).toBe(true);
    }
    const reflected = await atom(`?service=${encodeURIComponent(`${SCRIPT}\u0000]]>`)}`);
    expect(reflected.title['#text']).toBe(`statuswatch: incidents affecting ${SCRIPT}]]>`);
    expect((await atom('?service=')).entry).toHaveLength(50);
  });

  it('keeps hostile vendor text as inert text in every format', async () => {
    const expectedTitle = `[Incident · active] Files, <b>Evil</b> & "Co" ]]>: ${SCRIPT} ]]> Files & uploads ]]> fail[31m`;
    const expectedText = 'Fixed & verified alert(1) ]]> done';

    const entry = entryFor(await atom(), '1700');
    expect(entry.title).toEqual({ '@type': 'text', '#text': expectedTitle });
    expect(entry.content).toEqual({ '@type': 'text', '#text': expectedText });
    expect(entry.category).toEqual([{ '@term': 'Files' }, { '@term': '<b>Evil</b> & "Co" ]]>' }]);
    // Only the vendor's http(s) links are passed on.
    expect(entry.link).toHaveLength(1);

    const item = (await rss()).channel.item.find((i: any) => i.link.endsWith('/incidents/1700'));
    expect(item.title).toBe(expectedTitle);
    expect(item.category).toEqual(['Files', '<b>Evil</b> & "Co" ]]>']);
    // The description is HTML: the vendor's markup arrives escaped, never as elements.
    expect(item.description).toBe('<p>Fixed &amp; verified alert(1) ]]&gt; done</p>');

    const json = (await jsonFeed()).items.find((i: any) => i.url.endsWith('/incidents/1700'));
    expect(json).toMatchObject({ title: expectedTitle, content_text: expectedText, tags: ['Files', '<b>Evil</b> & "Co" ]]>'] });
    expect(json).not.toHaveProperty('external_url');
    expect(json).not.toHaveProperty('content_html');
  });

  it('answers If-None-Match with 304 until a poll changes the archive, and ids move only with their incident', async () => {
    const first = await fetchFeed('/feed.atom?service=Huddles');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{12}-\d+-\d+"$/);
    const again = await fetchFeed('/feed.atom?service=Huddles', { 'if-none-match': etag! });
    expect(again.status).toBe(304);
    const cached = await fetchFeed('/feed.atom?service=Huddles');
    expect(cached).toMatchObject({ status: 200, body: first.body });
    expect(cached.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const before = await atom();

    const news = await seedArchive(service.store, [
      {
        ...longRunning,
        status: 'resolved',
        date_updated: '2026-11-21T09:00:00-08:00',
        notes: [...longRunning.notes, { body: '<p>Huddles are stable again.</p>', date_created: '2026-11-21T09:00:00-08:00' }],
      },
      hostile,
      plainTextNote,
      ...pastIncidents(),
    ]);
    expect(news.events.length).toBeGreaterThan(0);
    const changed = await fetchFeed('/feed.atom?service=Huddles', { 'if-none-match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);

    const after = await atom();
    expect(after.entry[0]).toMatchObject({
      title: { '#text': '[Outage · resolved] Huddles: Huddles drop after a few minutes' },
      content: { '#text': 'Huddles are stable again.' },
    });
    expect(after.entry[0].id).not.toBe(before.entry[0].id);
    expect(after.entry.slice(1).map((e: any) => e.id)).toEqual(before.entry.slice(1).map((e: any) => e.id));
  });

  it('keeps every id after a restart on another port', async () => {
    const before = await jsonFeed();
    await service.close();
    service = await startTestApp(NO_FEED_URL, { dir: service.dir, origin: 'http://statuswatch.localhost:8081' });
    const after = await jsonFeed();
    expect(after.feed_url).not.toBe(before.feed_url);
    expect(after.items.map((i: any) => i.id)).toEqual(before.items.map((i: any) => i.id));
    const atomIds = [(await atom()).id, (await atom('?service=Files')).id, (await atom('?service=Files,Files')).id];
    expect(new Set(atomIds).size).toBe(2);
  });
});
