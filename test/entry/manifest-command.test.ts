/** `statuswatch manifest` as a user runs it: print JSON or YAML, check files, and the exit codes 0, 1 and 2. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli, type CliResult } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';
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

// The first case starts the real command (through tsx when dist/ is stale: seconds on a shared
// two-core machine); the others run the same command line in this process.
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
    const [json, yaml] = await Promise.all([runCliInProcess(['manifest'], { PUBLIC_URL }), runCliInProcess(['manifest', '--yaml'], { PUBLIC_URL })]);
    writeFileSync(join(dir, 'manifest.json'), json.stdout);
    writeFileSync(join(dir, 'manifest.yaml'), yaml.stdout);
    const checks = await Promise.all(['manifest.json', 'manifest.yaml'].map((file) => runCliInProcess(['manifest', '--check', join(dir, file)])));
    for (const check of checks) {
      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toContain('a valid manifest');
    }
  });

  it('prints the errors of a broken manifest, then its warnings, each as "severity: path: message", and exits 1', async () => {
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
    const result = await runCliInProcess(['manifest', '--check', file]);
    expect(result.code, result.stderr).toBe(1);
    const printed = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(': ').slice(0, 2).join(' '));
    // Errors first (in the manifest's order), then the warning: a spaced bot name is what the
    // vendor's own sample apps have.
    expect(printed).toEqual([
      'error display_information.name',
      'error features.slash_commands[0].command',
      'error features.slash_commands[0].url',
      'error oauth_config.scopes.bot_optional[0]',
      'error settings.token_rotation_enabled',
      'warning features.bot_user.display_name',
    ]);
    expect(messageLines(result)).toEqual([`statuswatch manifest: ${file}: 5 errors, 1 warning`]);
  });

  it('exits 0 on warnings alone, printing them and saying the manifest is valid', async () => {
    const file = join(tempDir(), 'warned.yaml');
    writeFileSync(
      file,
      [
        'display_information:',
        '  name: Release Notes',
        'features:',
        '  bot_user:',
        '    display_name: Release Notes Bot',
        'settings:',
        '  hermes_app_type: remote',
        '',
      ].join('\n'),
    );
    const result = await runCliInProcess(['manifest', '--check', file]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^warning: features\.bot_user\.display_name: .*not enforced by the vendor's own apps$/),
      expect.stringMatching(/^warning: settings\.hermes_app_type: unknown field/),
      `${file}: a valid manifest, with 2 warnings`,
    ]);
    expect(messageLines(result)).toEqual([]);
  });

  it('--json gives the errors and the warnings apart, each with its path, for tools; exit 1 only for errors', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'warned.json'),
      JSON.stringify({ $schema: 'https://example.com/s.json', display_information: { name: 'a' }, features: { bot_user: { display_name: 'A Bot' } } }),
    );
    writeFileSync(join(dir, 'broken.json'), JSON.stringify({ display_information: { name: 'x'.repeat(36) }, settings: { hermes_app_type: 'remote' } }));
    const [warned, broken] = await Promise.all(
      ['warned.json', 'broken.json'].map((file) => runCliInProcess(['manifest', '--check', join(dir, file), '--json'])),
    );
    expect(warned!.code, warned!.stderr).toBe(0);
    expect(JSON.parse(warned!.stdout)).toEqual({
      file: join(dir, 'warned.json'),
      valid: true,
      errorCount: 0,
      warningCount: 1,
      errors: [],
      warnings: [{ path: 'features.bot_user.display_name', message: expect.stringContaining('"A Bot"') }],
    });
    expect(broken!.code).toBe(1);
    expect(JSON.parse(broken!.stdout)).toEqual({
      file: join(dir, 'broken.json'),
      valid: false,
      errorCount: 1,
      warningCount: 1,
      errors: [{ path: 'display_information.name', message: 'at most 35 characters, got 36' }],
      warnings: [{ path: 'settings.hermes_app_type', message: expect.stringContaining('unknown field') }],
    });
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
      ['truncated.json', 'twice.json', 'hostile.json'].map((file) => runCliInProcess(['manifest', '--check', join(dir, file)])),
    )) as [CliResult, CliResult, CliResult];
    expect(hostile.code).toBe(1);
    expect(hostile.stdout).toMatch(/^error: features\.unfurl_domains: /);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character but the line feeds may reach the terminal
    expect(hostile.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(hostile.stdout.trim().split('\n')).toHaveLength(2);
    expect(truncated.code).toBe(1);
    expect(truncated.stdout).toMatch(/^error: line \d+, column \d+: not valid JSON or YAML/);
    expect(twice.code).toBe(1);
    expect(twice.stdout).toMatch(/^error: display_information\.name: given twice/);
  });

  it('prints at most 100 findings and counts the rest, as text and as JSON', async () => {
    const file = join(tempDir(), 'many.json');
    const commands = Array.from({ length: 50 }, (_, i) => ({ command: `c${i}`, description: 'x'.repeat(2001), url: 'http://x.example' }));
    writeFileSync(file, JSON.stringify({ display_information: { name: 'a' }, features: { slash_commands: commands } }));
    const [result, json] = await Promise.all([runCliInProcess(['manifest', '--check', file]), runCliInProcess(['manifest', '--check', file, '--json'])]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(101);
    expect(lines.at(-1)).toBe('... and 50 more');
    expect(messageLines(result)).toEqual([`statuswatch manifest: ${file}: 150 errors, 0 warnings`]);
    // --json: at most 100 of each list too, with the full counts.
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect([report.errorCount, report.errors.length, report.warningCount, report.warnings.length]).toEqual([150, 100, 0, 0]);
  });

  it('stops with one line and exit 2 when the file cannot be checked: missing, a folder, too large', async () => {
    const dir = tempDir();
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, `{"display_information": {"name": "a", "description": "${'x'.repeat(1_000_000)}"}}`);
    const [missing, folder, tooLarge] = await Promise.all([
      runCliInProcess(['manifest', '--check', join(dir, 'nope.json')]),
      runCliInProcess(['manifest', '--check', dir]),
      runCliInProcess(['manifest', '--check', huge]),
    ]);
    expectOneLineError(missing, `--check "${join(dir, 'nope.json')}": no such file`, 'Fix: ');
    expectOneLineError(folder, 'not a file');
    expectOneLineError(tooLarge, 'more than a manifest can be');
  });

  it('stops with one line and exit 2 without PUBLIC_URL, with an http:// one, for --yaml with --check, and for --json with --yaml', async () => {
    const [unset, http, both, twoFormats, noFile] = await Promise.all([
      runCliInProcess(['manifest'], { PUBLIC_URL: '' }),
      runCliInProcess(['manifest', '--public-url', 'http://status.example.com']),
      runCliInProcess(['manifest', '--yaml', '--check', 'manifest.yaml']),
      runCliInProcess(['manifest', '--json', '--yaml'], { PUBLIC_URL }),
      runCliInProcess(['manifest', '--check']),
    ]);
    expectOneLineError(unset, 'PUBLIC_URL is not set', 'Fix: ');
    expectOneLineError(http, 'PUBLIC_URL "http://status.example.com"', 'https', 'Fix: ');
    expectOneLineError(both, '--yaml');
    expectOneLineError(twoFormats, '--json and --yaml', 'Fix: ');
    expect(noFile.code).toBe(2);
    expect(noFile.stdout).toBe('');
  });

  it('is listed by --help, and has help of its own', async () => {
    const [top, own] = await Promise.all([runCliInProcess(['--help']), runCliInProcess(['manifest', '--help'])]);
    expect(top.stdout).toContain('  manifest ');
    expect(own.code).toBe(0);
    for (const flag of ['--public-url', '--yaml', '--check', '--json']) expect(own.stdout).toContain(flag);
  });
});
