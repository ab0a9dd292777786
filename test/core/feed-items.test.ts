import { createHash } from 'node:crypto';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  buildFeed,
  renderAtom,
  renderJsonFeed,
  renderRss,
  rfc3339,
  rfc822,
  syndicationId,
  toFeedItem,
  xmlChars,
  type SyndicationFeed,
} from '../../src/core/feed-items.ts';
import { htmlToText } from '../../src/core/html-text.ts';
import type { ListedIncident } from '../../src/core/ports.ts';
import { one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

const BASE = 'https://watch.example';

function listed(overrides: Partial<RawIncident> = {}, extra: Partial<ListedIncident> = {}): ListedIncident {
  const { notes, ...incident } = one(rawIncident(overrides));
  const latest = notes.at(-1);
  return {
    ...incident,
    revision: 1,
    resolvedAt: null,
    firstSeenAt: 0,
    lastSeenAt: 0,
    sortKey: incident.dateCreated.ms,
    noteCount: notes.length,
    latestNote: latest ? { ...latest, text: htmlToText(latest.body) } : null,
    ...extra,
  };
}

/** XML 1.0 Chars only, no CDATA end, and nothing fast-xml-parser's lenient validator refuses. */
function expectWellFormed(doc: string): void {
  expect(XMLValidator.validate(doc)).toBe(true);
  expect(doc).not.toMatch(/[^\t\n\r\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
  expect(doc).not.toContain(']]>');
  expect(doc).not.toContain('<script');
  expect(doc).not.toMatch(/="[^"]*</);
}

describe('xmlChars', () => {
  it('drops what XML 1.0 cannot hold or discourages, and keeps the rest', () => {
    expect(xmlChars('a\u0000b\u0007c\u001bd\u007fe\u0085f\ufffeg\uffffh\ud800i\udc00j')).toBe('abcdefghij');
    expect(xmlChars('tab\tnl\ncr\r é\u00a0😀 \ufffd')).toBe('tab\tnl\ncr\r é\u00a0😀 \ufffd');
  });
});

describe('dates', () => {
  it('formats RFC 3339 and RFC 822, clamped to four-digit years', () => {
    const ms = Date.UTC(2026, 8, 2, 16, 1, 10);
    expect(rfc3339(ms)).toBe('2026-09-02T16:01:10Z');
    expect(rfc822(ms)).toBe('Wed, 02 Sep 2026 16:01:10 GMT');
    expect(rfc3339(-1)).toBe('1970-01-01T00:00:00Z');
    expect(rfc3339(Date.UTC(12000, 0, 1))).toBe('9999-12-31T23:59:59Z');
    expect(rfc822(Number.NaN)).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
  });
});

describe('syndicationId', () => {
  it('is a UUID v5 (RFC 9562) of the name, the same every time', async () => {
    const namespace = Buffer.from('5d49998e144c416290d08415b7f53b98', 'hex');
    const hash = createHash('sha1').update(namespace).update('incident\n1577\nr4').digest();
    hash[6] = (hash[6]! & 0x0f) | 0x50;
    hash[8] = (hash[8]! & 0x3f) | 0x80;
    const hex = hash.subarray(0, 16).toString('hex');
    const expected = `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    expect(await syndicationId('incident\n1577\nr4')).toBe(expected);
    expect(await syndicationId('incident\n1577\nr5')).not.toBe(expected);
  });
});

describe('toFeedItem', () => {
  it('says how the incident stands, which services, and the latest note as text', async () => {
    const item = await toFeedItem(listed({ id: 1577, title: 'Some files fail to upload', status: 'resolved', services: ['Files'] }, { revision: 4 }), BASE);
    expect(item).toEqual({
      id: await syndicationId('incident\n1577\nr4'),
      title: '[Incident · resolved] Files: Some files fail to upload',
      url: `${BASE}/incidents/1577`,
      externalUrl: 'https://slack-status.com/2026-10/6c28dfb7b670dc02',
      publishedMs: Date.parse('2026-10-01T12:39:35Z'),
      updatedMs: Date.parse('2026-10-01T12:56:59Z'),
      categories: ['Files'],
      text: 'A third-party app is stuck in a loop.',
    });
  });

  it.each([
    // One rule: type, then status, for an outage and an incident alike.
    [{ status: 'completed', type: 'maintenance' }, '[Maintenance · completed] Messaging'],
    [{ status: 'canceled', type: 'maintenance' }, '[Maintenance · cancelled] Messaging'],
    [{ status: 'active', type: 'outage' }, '[Outage · active] Messaging'],
    [{ status: 'active', type: 'notice' }, '[Notice · active] Messaging'],
    [{ status: 'active', type: 'incident' }, '[Incident · active] Messaging'],
    [{ status: 'resolved', type: 'outage' }, '[Outage · resolved] Messaging'],
    [{ status: 'scheduled', type: 'maintenance' }, '[Maintenance · scheduled] Messaging'],
    [{ status: 'active', type: 'incident', services: [] }, '[Incident · active] All services'],
    [{ status: 'active', type: 'incident', services: ['A', 'B', 'C', 'D'] }, '[Incident · active] A, B, C +1 more'],
  ] as [Partial<RawIncident>, string][])('labels %j as %s', async (overrides, start) => {
    expect((await toFeedItem(listed(overrides), BASE)).title.startsWith(`${start}: `)).toBe(true);
  });

  it('keeps a plain-text note’s "<" as text, and says the status when there is no note', async () => {
    const plain = await toFeedItem(listed({ notes: [{ body: 'Latency < 5s & <rising>', date_created: '2019-05-01T10:00:00-07:00' }] }), BASE);
    expect(plain.text).toBe('Latency < 5s & <rising>');
    expect((await toFeedItem(listed({ notes: [] }), BASE)).text).toBe('Status: Active');
  });

  it('strips what XML cannot hold, also when HTML entities decode to it, and bounds the title', async () => {
    const item = await toFeedItem(
      listed({
        title: `\u0000${'x'.repeat(400)}`,
        services: ['\u001b', 'Files\uffff'],
        url: 'javascript:alert(1)',
        notes: [{ body: '<p>a&#27;b&#0;c\u0000</p>', date_created: '2026-10-01T05:39:35-07:00' }],
      }),
      BASE,
    );
    expect(item.title).toHaveLength(300);
    expect(item.title.startsWith('[Incident · active] Files: xxx')).toBe(true);
    expect(item.categories).toEqual(['Files']);
    expect(item.externalUrl).toBeNull();
    expect(xmlChars(item.text)).toBe(item.text);
    expect(item.text).toMatch(/^ab.?c$/u);
  });
});

describe('buildFeed', () => {
  it('names the filter, takes the newest update as its own, and says 1970 while empty', async () => {
    const feed = await buildFeed({
      incidents: [listed()],
      services: ['Files', 'Messaging', 'Files'],
      baseUrl: `${BASE}/`,
      selfUrl: `${BASE}/feed.atom?service=Files`,
    });
    expect(feed).toMatchObject({
      title: 'statuswatch: incidents affecting Files, Messaging',
      homeUrl: `${BASE}/`,
      updatedMs: Date.parse('2026-10-01T12:56:59Z'),
    });
    expect(feed.id).toBe((await buildFeed({ incidents: [], services: ['Messaging', 'Files'], baseUrl: 'http://other', selfUrl: 'http://other/feed.rss' })).id);
    const empty = await buildFeed({ incidents: [], services: undefined, baseUrl: BASE, selfUrl: `${BASE}/feed.json` });
    expect(empty).toMatchObject({ title: 'statuswatch: incidents', updatedMs: 0, items: [] });
    expect(empty.id).not.toBe(feed.id);
  });
});

describe('renderers', () => {
  // Straight into the renderers, past the item builder's cleaning: they must hold on their own.
  const hostile: SyndicationFeed = {
    id: 'urn:uuid:00000000-0000-5000-8000-000000000000',
    title: 'feed <b>\u0000 ]]>',
    description: 'd & "q"',
    homeUrl: `${BASE}/`,
    selfUrl: `${BASE}/feed?service=a&service=<b>`,
    updatedMs: 0,
    items: [
      {
        id: 'urn:uuid:00000000-0000-5000-8000-000000000001',
        title: '<script>x</script> ]]> \u001b',
        url: `${BASE}/incidents/1?a=1&b="2"`,
        externalUrl: 'https://vendor.example/x?a=1&b=2',
        publishedMs: 0,
        updatedMs: 0,
        categories: ['<b>"Evil"</b> & \u0000 ]]>'],
        text: 'line <one> & ]]>\nline two\u0007\n\nsecond <p>aragraph',
      },
    ],
  };

  it('write well-formed Atom and RSS, whatever the strings', () => {
    expectWellFormed(renderAtom(hostile));
    expectWellFormed(renderRss(hostile));
  });

  it('give RSS a description of escaped HTML with paragraphs and line breaks', () => {
    expect(renderRss(hostile)).toContain(
      '<description>&lt;p&gt;line &amp;lt;one&amp;gt; &amp;amp; ]]&amp;gt;&lt;br&gt;line two&lt;/p&gt;&lt;p&gt;second &amp;lt;p&amp;gt;aragraph&lt;/p&gt;</description>',
    );
    expect(renderRss(hostile)).toContain('<title>&#x3C;script&#x3E;x&#x3C;/script&#x3E; ]]&#x3E; </title>');
  });

  it('write JSON Feed 1.1, leaving out what an item does not have', () => {
    const json = JSON.parse(renderJsonFeed({ ...hostile, items: [{ ...hostile.items[0]!, externalUrl: null, categories: [] }] }));
    expect(json.version).toBe('https://jsonfeed.org/version/1.1');
    expect(Object.keys(json.items[0]).sort()).toEqual(['content_text', 'date_modified', 'date_published', 'id', 'title', 'url']);
  });
});
