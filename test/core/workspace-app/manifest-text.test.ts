/** Manifest files as users and attackers write them: JSON or YAML, typos, keys twice, alias bombs, deep nesting. */
import { describe, expect, it } from 'vitest';
import { checkAppManifest } from '../../../src/core/workspace-app/manifest-schema.ts';
import { formatManifest, parseManifestText } from '../../../src/core/workspace-app/manifest-text.ts';
import { appManifest } from '../../../src/core/workspace-app/manifest.ts';

const JSON_TEXT = `{
  "_metadata": { "major_version": 2 },
  "display_information": { "name": "Status Watch" },
  "features": { "slash_commands": [{ "command": "/status", "description": "Current status" }] },
  "settings": { "token_rotation_enabled": true }
}`;

const YAML_TEXT = `# the same manifest, as YAML
_metadata:
  major_version: 2
display_information:
  name: Status Watch
features:
  slash_commands:
    - command: /status
      description: Current status
settings:
  token_rotation_enabled: true
`;

function manifestOf(text: string): unknown {
  const parsed = parseManifestText(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.violations));
  return parsed.manifest;
}

describe('reading a manifest file', () => {
  it('reads JSON and YAML to the same manifest', () => {
    expect(manifestOf(JSON_TEXT)).toEqual(JSON.parse(JSON_TEXT));
    expect(manifestOf(YAML_TEXT)).toEqual(JSON.parse(JSON_TEXT));
    expect(checkAppManifest(manifestOf(YAML_TEXT))).toEqual([]);
  });

  it('reads YAML as YAML 1.2: "yes" is a string, so a flag written yes is reported, not taken as true', () => {
    const manifest = manifestOf(YAML_TEXT.replace('token_rotation_enabled: true', 'token_rotation_enabled: yes'));
    expect(checkAppManifest(manifest)).toEqual([{ path: 'settings.token_rotation_enabled', message: 'expected a boolean, got "yes"', severity: 'error' }]);
  });

  it('reports a key given twice, which JSON.parse would silently merge, at its path', () => {
    const json = `{"display_information": {"name": "a"}, "functions": {"notify_status": {"title": "A"}, "notify_status": {"title": "B"}}}`;
    expect(parseManifestText(json)).toEqual({
      ok: false,
      violations: [{ path: 'functions.notify_status', message: expect.stringContaining('keys must be unique'), severity: 'error' }],
    });
    const yaml = 'display_information:\n  name: a\nfeatures:\n  slash_commands:\n    - command: /a\n      command: /b\n';
    expect(parseManifestText(yaml)).toMatchObject({ ok: false, violations: [{ path: 'features.slash_commands[0].command' }] });
  });

  it('reports text that is neither JSON nor YAML with its line and column', () => {
    const broken = parseManifestText('{\n  "display_information": {"name": "a"\n');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.violations[0]!.path).toMatch(/^line \d+, column \d+$/);
    const twoDocuments = parseManifestText('display_information: {name: a}\n---\ndisplay_information: {name: b}\n');
    expect(twoDocuments.ok).toBe(false);
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 10; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const startedMs = performance.now();
    const parsed = parseManifestText(lines.join('\n'));
    expect(parsed).toMatchObject({ ok: false, violations: [{ path: '(root)' }] });
    expect(performance.now() - startedMs).toBeLessThan(2000);
  });

  it('refuses nesting deep enough to exhaust the parser, quickly, as a violation and not a crash', () => {
    const flow = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const hiddenByQuotes = `a's: ${'[ "]", '.repeat(50_000)}`;
    const compact = `${'- '.repeat(50_000)}x`;
    let block = '';
    for (let level = 0; level < 2000; level++) block += `${' '.repeat(level)}a:\n`;
    for (const text of [flow, hiddenByQuotes, compact, block]) {
      const startedMs = performance.now();
      expect(parseManifestText(text)).toMatchObject({ ok: false, violations: [{ path: '(root)', message: expect.stringMatching(/nested/) }] });
      expect(performance.now() - startedMs).toBeLessThan(1000);
    }
  });

  it('counts nesting outside strings and comments only: brackets in text are text', () => {
    const brackets = '['.repeat(100);
    const yaml = `display_information:\n  name: "${brackets}" # ${brackets}\n  description: '${brackets}'\n  long_description: it's [${brackets}\n`;
    expect(parseManifestText(yaml)).toEqual({
      ok: true,
      manifest: { display_information: { name: brackets, description: brackets, long_description: `it's [${brackets}` } },
    });
  });
});

describe('printing a manifest', () => {
  it('as JSON and as YAML, each reading back to the manifest', () => {
    const manifest = appManifest({ publicUrl: 'https://status.example.com' });
    expect(JSON.parse(formatManifest(manifest, 'json'))).toEqual(manifest);
    const yaml = formatManifest(manifest, 'yaml');
    expect(yaml).not.toMatch(/^\{/);
    expect(manifestOf(yaml)).toEqual(manifest);
  });
});
