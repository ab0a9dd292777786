/** `statuswatch manifest` as a user runs it: print JSON or YAML, check files, and the exit codes 0, 1 and 2. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli, type CliResult } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const PUBLIC_URL = 'https://status.example.com';

/** stderr without log lines: what a person reads. */
function messageLines(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
}

function expectOneLineError(result: CliResult, ...fragments: string[]): void {
  expect(result.code, result.stderr).toBe(2);
  const lines = messageLines(result);
  expect(lines, result.stderr).toHaveLength(1);
  for (const fragment of fragments) expect(lines[0]).toContain(fragment);
  expect(result.stdout).toBe('');
}

// Each run starts the command through tsx: seconds apiece on a shared two-core machine.
describe('statuswatch manifest', { timeout: 90_000 }, () => {
  it('prints the manifest as JSON, and as the same manifest in YAML with --yaml', async () => {
    const [json, yaml] = await Promise.all([runCli(['manifest', '--public-url', PUBLIC_URL]), runCli(['manifest', '--yaml'], { PUBLIC_URL })]);
    expect(json.code, json.stderr).toBe(0);
    expect(yaml.code, yaml.stderr).toBe(0);
    const manifest = JSON.parse(json.stdout);
    expect(manifest._metadata.major_version).toBe(2);
    expect(manifest.settings.token_rotation_enabled).toBe(true);
    expect(manifest.features.slash_commands[0].command).toBe('/status');
    expect(manifest.features.slash_commands[0].url.startsWith(`${PUBLIC_URL}/`)).toBe(true);
    expect(manifest.settings.interactivity.request_url.startsWith(`${PUBLIC_URL}/`)).toBe(true);
    expect(manifest.oauth_config.redirect_urls.every((url: string) => url.startsWith(`${PUBLIC_URL}/`))).toBe(true);
    expect(yaml.stdout.trimStart().startsWith('{')).toBe(false);
    expect(parseYaml(yaml.stdout)).toEqual(manifest);
  });

  it('checks its own manifest, JSON or YAML, as valid: exit 0', async () => {
    const dir = tempDir();
    const [json, yaml] = await Promise.all([runCli(['manifest'], { PUBLIC_URL }), runCli(['manifest', '--yaml'], { PUBLIC_URL })]);
    writeFileSync(join(dir, 'manifest.json'), json.stdout);
    writeFileSync(join(dir, 'manifest.yaml'), yaml.stdout);
    const checks = await Promise.all(['manifest.json', 'manifest.yaml'].map((file) => runCli(['manifest', '--check', join(dir, file)])));
    for (const check of checks) {
      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toContain('a valid manifest');
    }
  });

  it('prints each violation of a broken manifest as "path: message" and exits 1', async () => {
    const file = join(tempDir(), 'broken.yaml');
    writeFileSync(
      file,
      [
        'display_information:',
        `  name: ${'x'.repeat(36)}`,
        'features:',
        '  bot_user:',
        '    display_name: Status Watch',
        '  slash_commands:',
        '    - command: status',
        '      description: Current status',
        '      url: http://status.example.com/app/commands',
        'oauth_config:',
        '  scopes:',
        '    bot: [chat:write]',
        '    bot_optional: [commands]',
        'settings:',
        '  token_rotation_enabled: yes',
        '',
      ].join('\n'),
    );
    const result = await runCli(['manifest', '--check', file]);
    expect(result.code, result.stderr).toBe(1);
    const printed = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.slice(0, line.indexOf(': ')));
    expect(printed.sort()).toEqual(
      [
        'display_information.name',
        'features.bot_user.display_name',
        'features.slash_commands[0].command',
        'features.slash_commands[0].url',
        'oauth_config.scopes.bot_optional[0]',
        'settings.token_rotation_enabled',
      ].sort(),
    );
    expect(messageLines(result)).toEqual([`statuswatch manifest: ${file}: 6 violations`]);
  });

  it('reports JSON that does not parse, a key given twice, and hostile keys, printed inert: exit 1', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'truncated.json'), '{\n  "display_information": {"name": "statuswatch"\n');
    writeFileSync(join(dir, 'twice.json'), '{"display_information": {"name": "a", "name": "b"}}');
    // Keys and values that would move the cursor, clear the screen and fake a line of output.
    writeFileSync(
      join(dir, 'hostile.json'),
      JSON.stringify({ display_information: { name: 'a' }, 'x\u001b[2J\nfake: line': 1, features: { unfurl_domains: 'a\u009b31m' } }),
    );
    const [truncated, twice, hostile] = (await Promise.all(
      ['truncated.json', 'twice.json', 'hostile.json'].map((file) => runCli(['manifest', '--check', join(dir, file)])),
    )) as [CliResult, CliResult, CliResult];
    expect(hostile.code).toBe(1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character but the line feeds may reach the terminal
    expect(hostile.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(hostile.stdout.trim().split('\n')).toHaveLength(2);
    expect(truncated.code).toBe(1);
    expect(truncated.stdout).toMatch(/^line \d+, column \d+: not valid JSON or YAML/);
    expect(twice.code).toBe(1);
    expect(twice.stdout).toMatch(/^display_information\.name: given twice/);
  });

  it('prints at most 100 violations and counts the rest', async () => {
    const file = join(tempDir(), 'many.json');
    const commands = Array.from({ length: 50 }, (_, i) => ({ command: `c${i}`, description: 'x'.repeat(2001), url: 'http://x.example' }));
    writeFileSync(file, JSON.stringify({ display_information: { name: 'a' }, features: { slash_commands: commands } }));
    const result = await runCli(['manifest', '--check', file]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(101);
    expect(lines.at(-1)).toBe('... and 50 more');
    expect(messageLines(result)).toEqual([`statuswatch manifest: ${file}: 150 violations`]);
  });

  it('stops with one line and exit 2 when the file cannot be checked: missing, a folder, too large', async () => {
    const dir = tempDir();
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, `{"display_information": {"name": "a", "description": "${'x'.repeat(1_000_000)}"}}`);
    const [missing, folder, tooLarge] = await Promise.all([
      runCli(['manifest', '--check', join(dir, 'nope.json')]),
      runCli(['manifest', '--check', dir]),
      runCli(['manifest', '--check', huge]),
    ]);
    expectOneLineError(missing, `--check "${join(dir, 'nope.json')}": no such file`, 'Fix: ');
    expectOneLineError(folder, 'not a file');
    expectOneLineError(tooLarge, 'more than a manifest can be');
  });

  it('stops with one line and exit 2 without PUBLIC_URL, with an http:// one, and for --yaml with --check', async () => {
    const [unset, http, both, noFile] = await Promise.all([
      runCli(['manifest'], { PUBLIC_URL: '' }),
      runCli(['manifest', '--public-url', 'http://status.example.com']),
      runCli(['manifest', '--yaml', '--check', 'manifest.yaml']),
      runCli(['manifest', '--check']),
    ]);
    expectOneLineError(unset, 'PUBLIC_URL is not set', 'Fix: ');
    expectOneLineError(http, 'PUBLIC_URL "http://status.example.com"', 'https', 'Fix: ');
    expectOneLineError(both, '--yaml');
    expect(noFile.code).toBe(2);
    expect(noFile.stdout).toBe('');
  });

  it('is listed by --help, and has help of its own', async () => {
    const [top, own] = await Promise.all([runCli(['--help']), runCli(['manifest', '--help'])]);
    expect(top.stdout).toContain('  manifest ');
    expect(own.code).toBe(0);
    for (const flag of ['--public-url', '--yaml', '--check']) expect(own.stdout).toContain(flag);
  });
});
