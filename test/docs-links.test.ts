/**
 * The README is a front door to docs/: every relative link in README.md and docs/*.md must lead
 * somewhere (the file exists, and a #fragment names a heading of that file), and the README must
 * stay short enough to read and link every page of docs/.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(ROOT, 'docs');
const README_MAX_LINES = 300;

/** Markdown lines outside fenced code blocks, where headings and links count. */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const opener = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/**
 * The anchor GitHub gives a heading: lower-case, punctuation dropped (letters, digits, marks, `_`,
 * `-` and spaces stay), spaces to `-`; a repeated slug gets -1, -2, ...
 */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Link targets of `[text](target)` and `![alt](target)`, outside code. */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1] as string);
  }
  return targets;
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

const markdownFiles = (): string[] => [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
];

/** Every relative link in `file` that leads nowhere, as "file: target (why)". */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(readFileSync(file, 'utf8'))) {
    if (isExternal(target)) continue;
    const [rawPath = '', fragment] = target.split('#', 2);
    const path = rawPath === '' ? file : join(dirname(file), decodeURIComponent(rawPath));
    const where = `${relative(ROOT, file)}: ${target}`;
    if (!existsSync(path)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (fragment === undefined || fragment === '') continue;
    if (!path.endsWith('.md')) broken.push(`${where} (a fragment into a file that is not Markdown)`);
    else if (!anchorsOf(readFileSync(path, 'utf8')).has(fragment.toLowerCase())) broken.push(`${where} (no such heading)`);
  }
  return broken;
}

describe('GitHub heading anchors', () => {
  it('drop punctuation and code marks and join words with dashes, as GitHub does', () => {
    expect(githubSlug('Asking the archive from an assistant (MCP)')).toBe('asking-the-archive-from-an-assistant-mcp');
    expect(githubSlug('Three ways to let clients in (`MCP_AUTH`)')).toBe('three-ways-to-let-clients-in-mcp_auth');
    expect(githubSlug('Delivery: nothing lost, nothing sent twice')).toBe('delivery-nothing-lost-nothing-sent-twice');
    expect(githubSlug('The `/status` command')).toBe('the-status-command');
  });

  it('number a repeated heading', () => {
    expect([...anchorsOf('# Settings\n\n## Settings\n\n```\n# not a heading\n```\n')]).toEqual(['settings', 'settings-1']);
  });
});

describe('README.md and docs/', () => {
  it('every relative link resolves: the file exists, and its #fragment is a heading there', () => {
    const broken = markdownFiles().flatMap(brokenLinks);
    expect(broken).toEqual([]);
  });

  it('a link to a missing file, or to a heading its file lacks, is reported', () => {
    const folder = mkdtempSync(join(tmpdir(), 'docs-links-'));
    try {
      writeFileSync(join(folder, 'b.md'), '# Where it is\n');
      const page = join(folder, 'a.md');
      writeFileSync(page, '# Top\n\n[ok](b.md#where-it-is) [self](#top) [gone](c.md) [wrong](b.md#where) `[code](d.md)`\n');
      expect(brokenLinks(page).map((line) => line.replace(/^.*?: /, ''))).toEqual(['c.md (no such file)', 'b.md#where (no such heading)']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it(`the README is a front door: under ${README_MAX_LINES} lines, linking every page of docs/`, () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(README_MAX_LINES);
    const linked = new Set(linkTargets(readme).map((t) => t.split('#')[0]));
    const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
    expect(pages.filter((page) => !linked.has(`docs/${page}`))).toEqual([]);
  });
});
