/**
 * The archive's incidents as syndication feed items, and those items as Atom 1.0, RSS 2.0 and
 * JSON Feed 1.1 documents. Pure: the route loads the incidents and passes the URLs to use.
 */
import { escapeUTF8 } from 'entities';
import { toHex } from './bytes.ts';
import { incidentPageUrl, noteText, oneLine, servicesLabel, statusWord, truncate, vendorUrl } from './notification-message.ts';
import type { ListedIncident } from './ports.ts';
import { toIsoSeconds } from './vendor-time.ts';

/** One incident as it stands now: readers see a new item whenever its revision moves. */
export type FeedItem = {
  /** `urn:uuid:` of the incident id and revision (see `syndicationId`). */
  id: string;
  /** Plain text on one line: `[Resolved] Files: Some files fail to upload`. */
  title: string;
  /** Our page for the incident. */
  url: string;
  /** The vendor's page, only when it is http(s). */
  externalUrl: string | null;
  /** The incident's date_created and date_updated, epoch ms. */
  publishedMs: number;
  updatedMs: number;
  /** The affected services, as the vendor names them. */
  categories: string[];
  /** The latest note as plain text (never HTML), or the status when there is no note. */
  text: string;
};

export type SyndicationFeed = {
  id: string;
  title: string;
  description: string;
  homeUrl: string;
  /** The URL of this very document, query string included. */
  selfUrl: string;
  /** The newest item's `updatedMs`; 0 (1970) while the feed is empty, so its body stays the same. */
  updatedMs: number;
  items: FeedItem[];
};

/** Items in a feed document: months of incidents, and still small for readers that fetch it often. */
export const FEED_ITEMS_MAX = 50;
/** Longest title and content an item keeps: vendor text, and a feed holds 50 of them. */
const TITLE_MAX_CHARS = 300;
const TEXT_MAX_CHARS = 20_000;
const FILTER_LABEL_MAX_CHARS = 200;

/** Random once, fixed forever: the UUID v5 namespace of every id these feeds mint. */
const ID_NAMESPACE = '5d49998e-144c-4162-90d0-8415b7f53b98';

export type FeedInput = {
  /** Candidates, in any order (the store lists them newest created first). */
  incidents: readonly ListedIncident[];
  /** The `service` filter as given, or undefined for all. */
  services: readonly string[] | undefined;
  /** Where our incident pages live: the request's origin until there is a PUBLIC_URL setting. */
  baseUrl: string;
  selfUrl: string;
  /** A watched page's feed: that page (its id in the feed's id, its name in the title); absent for the vendor's. */
  source?: { id: string; name: string };
};

export async function buildFeed({ incidents, services, baseUrl, selfUrl, source }: FeedInput): Promise<SyndicationFeed> {
  // In the order given: the store lists them newest update first.
  const items = await Promise.all(incidents.slice(0, FEED_ITEMS_MAX).map((incident) => toFeedItem(incident, baseUrl)));
  const filter = services && services.length > 0 ? [...new Set(services.map(line))].sort() : [];
  const filterLabel = truncate(filter.join(', '), FILTER_LABEL_MAX_CHARS);
  return {
    // Neither the origin nor the format is in the id: the same filter is the same feed.
    // The vendor's feed keeps the id it always had; a watched page's is another feed.
    id: await syndicationId([source ? `feed of ${source.id}` : 'feed', ...filter].join('\n')),
    title: `statuswatch: ${source ? `${truncate(line(source.name), FILTER_LABEL_MAX_CHARS)}: ` : ''}${filter.length > 0 ? `incidents affecting ${filterLabel}` : 'incidents'}`,
    description: source
      ? `The incidents of the status page ${truncate(line(source.name), FILTER_LABEL_MAX_CHARS)} as statuswatch archived them, the most recently updated first.`
      : "The vendor's incidents as statuswatch archived them, the most recently updated first.",
    homeUrl: `${baseUrl.replace(/\/+$/, '')}/`,
    selfUrl,
    updatedMs: items[0]?.updatedMs ?? 0,
    items,
  };
}

export async function toFeedItem(incident: ListedIncident, baseUrl: string): Promise<FeedItem> {
  // Entities the HTML decodes (&#27;) can bring back what the first pass stripped.
  const note = incident.latestNote ? xmlChars(noteText(xmlChars(incident.latestNote.body))).trim() : '';
  const categories = [...new Set(incident.services.map(line).filter((s) => s !== ''))];
  const title = `[${itemLabel(incident)}] ${servicesLabel(categories)}: ${line(incident.title) || 'Untitled'}`;
  return {
    // Per revision, so that every change reaches readers as a new item; stable across polls,
    // restarts and whatever host name the feed was fetched through.
    id: await syndicationId(`incident\n${incident.id}\nr${incident.revision}`),
    title: truncate(title, TITLE_MAX_CHARS),
    url: incidentPageUrl(baseUrl, incident.id),
    externalUrl: vendorUrl(incident.url),
    publishedMs: incident.dateCreated.ms,
    updatedMs: incident.dateUpdated.ms,
    categories,
    text: truncate(note || `Status: ${statusWord(xmlChars(incident.status))}`, TEXT_MAX_CHARS),
  };
}

/**
 * What the reader sees first, by one rule for every item: the incident's type, then its status,
 * `Outage · active`, `Incident · resolved`. The vendor's spelling "canceled" reads "cancelled".
 */
function itemLabel({ status, type }: Pick<ListedIncident, 'status' | 'type'>): string {
  const kind = truncate(statusWord(xmlChars(type)), 40) || 'Incident';
  const state = status === 'canceled' ? 'cancelled' : truncate(oneLine(xmlChars(status)).toLowerCase(), 40) || 'ongoing';
  return `${kind} · ${state}`;
}

/**
 * A UUID v5 (name-based, SHA-1) as a `urn:uuid:`: a valid IRI for Atom, a guid for RSS, a string
 * for JSON Feed, and unlike a tag: or http: id it does not depend on the host name we serve.
 */
export async function syndicationId(name: string): Promise<string> {
  const namespace = ID_NAMESPACE.replace(/-/g, '')
    .match(/../g)!
    .map((hex) => parseInt(hex, 16));
  const input = new Uint8Array([...namespace, ...new TextEncoder().encode(name)]);
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-1', input)).slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = toHex(bytes);
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// XML 1.0 allows neither C0 controls (but tab, line feed, carriage return), nor U+FFFE/U+FFFF,
// nor lone surrogates; it discourages C1 controls. Vendor JSON can carry any of them ("\u0000").
// With the `u` flag a lone surrogate is one code point outside every allowed range.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Vendor text without the characters an XML document cannot hold. */
export function xmlChars(text: string): string {
  return text.replace(NOT_XML_CHAR, '');
}

/** Vendor text on one line, without what XML cannot hold. */
const line = (text: string) => oneLine(xmlChars(text));

/** For text and attribute values alike: `& < > " '` as entities. */
const xml = (text: string) => escapeUTF8(xmlChars(text));

/** RFC 3339 needs a four-digit year: instants outside 1970-9999 are clamped. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_000;
const clampMs = (ms: number) => (Number.isFinite(ms) ? Math.min(Math.max(ms, 0), LAST_FOUR_DIGIT_YEAR_MS) : 0);

export const rfc3339 = (ms: number) => toIsoSeconds(clampMs(ms));
/** RFC 822 as RSS wants it, with a four-digit year: "Wed, 02 Sep 2026 16:01:10 GMT". */
export const rfc822 = (ms: number) => new Date(clampMs(ms)).toUTCString();

export function renderAtom(feed: SyndicationFeed): string {
  const entries = feed.items.map((item) =>
    [
      '  <entry>',
      `    <id>${xml(item.id)}</id>`,
      `    <title type="text">${xml(item.title)}</title>`,
      `    <link rel="alternate" type="text/html" href="${xml(item.url)}"/>`,
      ...(item.externalUrl ? [`    <link rel="related" type="text/html" href="${xml(item.externalUrl)}"/>`] : []),
      `    <published>${rfc3339(item.publishedMs)}</published>`,
      `    <updated>${rfc3339(item.updatedMs)}</updated>`,
      ...item.categories.map((name) => `    <category term="${xml(name)}"/>`),
      `    <content type="text">${xml(item.text)}</content>`,
      '  </entry>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xml(feed.id)}</id>`,
    `  <title type="text">${xml(feed.title)}</title>`,
    `  <subtitle type="text">${xml(feed.description)}</subtitle>`,
    `  <updated>${rfc3339(feed.updatedMs)}</updated>`,
    `  <link rel="self" type="application/atom+xml" href="${xml(feed.selfUrl)}"/>`,
    `  <link rel="alternate" type="text/html" href="${xml(feed.homeUrl)}"/>`,
    // Required at feed level when the entries have none (RFC 4287, 4.1.1).
    '  <author><name>statuswatch</name></author>',
    '  <generator>statuswatch</generator>',
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}

/**
 * RSS 2.0. Plain-text elements encode `& < >` as hexadecimal references, which the RSS Best
 * Practices Profile finds the most widely understood; `description` is HTML by convention, so
 * the note's text is escaped as HTML first and the result escaped again as XML.
 */
export function renderRss(feed: SyndicationFeed): string {
  const items = feed.items.map((item) =>
    [
      '    <item>',
      `      <title>${rssText(item.title)}</title>`,
      `      <link>${xml(item.url)}</link>`,
      `      <guid isPermaLink="false">${xml(item.id)}</guid>`,
      // Every revision is a new guid, so its date is the revision's: the incident's date_updated.
      `      <pubDate>${rfc822(item.updatedMs)}</pubDate>`,
      ...item.categories.map((name) => `      <category>${rssText(name)}</category>`),
      `      <description>${xml(textToHtml(item.text))}</description>`,
      '    </item>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">',
    '  <channel>',
    `    <title>${rssText(feed.title)}</title>`,
    `    <link>${xml(feed.homeUrl)}</link>`,
    `    <description>${rssText(feed.description)}</description>`,
    `    <atom:link rel="self" type="application/rss+xml" href="${xml(feed.selfUrl)}"/>`,
    `    <lastBuildDate>${rfc822(feed.updatedMs)}</lastBuildDate>`,
    '    <docs>https://www.rssboard.org/rss-specification</docs>',
    '    <generator>statuswatch</generator>',
    ...items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}

function rssText(text: string): string {
  return xmlChars(text).replace(/&/g, '&#x26;').replace(/</g, '&#x3C;').replace(/>/g, '&#x3E;');
}

/** Plain text as HTML that shows exactly that text: paragraphs at blank lines, breaks at line ends. */
function textToHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${paragraph.split('\n').map(escapeUTF8).join('<br>')}</p>`)
    .join('');
}

/** JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/). */
export function renderJsonFeed(feed: SyndicationFeed): string {
  return JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: feed.title,
    home_page_url: feed.homeUrl,
    feed_url: feed.selfUrl,
    description: feed.description,
    authors: [{ name: 'statuswatch' }],
    items: feed.items.map((item) => ({
      id: item.id,
      url: item.url,
      ...(item.externalUrl ? { external_url: item.externalUrl } : {}),
      title: item.title,
      content_text: item.text,
      date_published: rfc3339(item.publishedMs),
      date_modified: rfc3339(item.updatedMs),
      ...(item.categories.length > 0 ? { tags: item.categories } : {}),
    })),
  });
}
