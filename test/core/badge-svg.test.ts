/** Shields-style badges: sizes from the Verdana width table, accessible names, and hostile labels kept as text. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { BADGE_LABEL_MAX_CHARS, badgeFor, renderBadge, textWidthPx } from '../../src/core/badge-svg.ts';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => ['text', 'rect'].includes(name),
});
const SVG_TAGS = new Set(['svg', 'title', 'linearGradient', 'stop', 'clipPath', 'rect', 'g', 'text']);

function parse(svg: string) {
  expect(XMLValidator.validate(svg)).toBe(true);
  // Every `<` opens one of the badge's own elements: nothing from the label became markup.
  const names = [...svg.matchAll(/<\/?([^\s/>]*)/g)].map((m) => m[1]!);
  expect(names.filter((name) => !SVG_TAGS.has(name))).toEqual([]);
  return parser.parse(svg).svg;
}

describe('textWidthPx', () => {
  it('adds Verdana 11px widths and rounds up to whole pixels', () => {
    // b 6.9 + u 7.0 + i 3.0 + l 3.0 + d 6.9 = 26.8: the 37 px label of shields' "build" badge, less its 10 px of padding.
    expect(textWidthPx('build')).toBe(27);
    expect(textWidthPx('MMMM')).toBe(38); // 4 x 9.3
    expect(textWidthPx('iiii')).toBe(12); // 4 x 3.0
  });

  it('gives text outside ASCII room by kind: CJK a full em, combining marks none', () => {
    expect(textWidthPx('文件')).toBe(22);
    expect(textWidthPx('e\u0301')).toBe(textWidthPx('e'));
    expect(textWidthPx('é')).toBeGreaterThan(0);
  });
});

describe('badgeFor', () => {
  it('says the state in words and colours, or "unknown" in grey when the data is stale', () => {
    expect(badgeFor('Files', 'ok', false)).toEqual({ label: 'Files', message: 'operational', color: '#4c1' });
    expect(badgeFor('Files', 'maintenance', false).message).toBe('maintenance');
    expect(badgeFor('Files', 'notice', false).message).toBe('notice');
    expect(badgeFor('Files', 'incident', false).message).toBe('incident');
    expect(badgeFor('Files', 'outage', false)).toEqual({ label: 'Files', message: 'outage', color: '#e05d44' });
    expect(badgeFor('Files', 'outage', true)).toEqual({ label: 'Files', message: 'unknown', color: '#9f9f9f' });
  });

  it('draws a name never seen as a grey "unknown service"; stale, everything is a grey "unknown"', () => {
    expect(badgeFor('Nope', 'unknown', false)).toEqual({ label: 'Nope', message: 'unknown service', color: '#9f9f9f' });
    expect(badgeFor('Nope', 'unknown', true)).toEqual({ label: 'Nope', message: 'unknown', color: '#9f9f9f' });
  });
});

describe('renderBadge', () => {
  it('draws two boxes sized to their text, with an accessible name and title', () => {
    const svg = parse(renderBadge(badgeFor('Files', 'outage', false)));
    const label = textWidthPx('Files') + 10;
    const message = textWidthPx('outage') + 10;
    expect(svg['@width']).toBe(String(label + message));
    expect(svg['@role']).toBe('img');
    expect(svg['@aria-label']).toBe('Files: outage');
    expect(svg.title).toBe('Files: outage');
    const [left, right] = svg.g[0].rect;
    expect(left).toMatchObject({ '@width': String(label), '@fill': '#555' });
    expect(right).toMatchObject({ '@x': String(label), '@width': String(message), '@fill': '#e05d44' });
    const texts = svg.g[1].text;
    expect(texts.map((t: any) => t['#text'])).toEqual(['Files', 'Files', 'outage', 'outage']);
    expect(texts[2]).toMatchObject({ '@x': String((label + message / 2) * 10), '@textLength': String(textWidthPx('outage') * 10) });
  });

  it('keeps a hostile label as text: escaped, on one line, without what XML cannot hold, and cut to length', () => {
    const hostile = `<script>x()</script> & 'Co'\u0000\u001b\n"]]>`;
    const raw = renderBadge(badgeFor(hostile, 'ok', false));
    const svg = parse(raw);
    expect(raw).not.toContain('<script');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the SVG
    expect(raw).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const shown = `<script>x()</script> & 'Co' "]]>`;
    expect(svg['@aria-label']).toBe(`${shown}: operational`);
    expect(svg.g[1].text[1]['#text']).toBe(shown);

    const long = renderBadge(badgeFor('x'.repeat(500), 'ok', false));
    expect(parse(long).g[1].text[1]['#text']).toBe(`${'x'.repeat(BADGE_LABEL_MAX_CHARS - 1)}…`);
  });

  it('labels an empty or blank label "status"', () => {
    expect(parse(renderBadge(badgeFor(' \n ', 'ok', false)))['@aria-label']).toBe('status: operational');
  });
});
