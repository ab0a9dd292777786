/**
 * `manifest --check` over manifests written in the image of the ones real apps ship
 * (test/fixtures/manifests: the vendor's own sample apps and public apps made from them: bot
 * names with spaces, `$schema`, `settings.hermes_app_type`, providers under
 * `external_auth_providers.oauth2.<key>`, `outgoing_domains: []` without the hosted runtime,
 * v2-shaped parameters in a v1 manifest, `{{URL}}`, `<BASE_URL>` and `$VAR` placeholders, a
 * version past 2). Apps are made from such files, so none may fail with an error; what the
 * spec documents and the vendor does not enforce is a warning at its path. A copy of each with
 * one real mistake fails with an error at exactly that mistake's path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkAppManifest } from '../../../src/core/workspace-app/manifest-schema.ts';
import { parseManifestText } from '../../../src/core/workspace-app/manifest-text.ts';

const FIXTURES = new URL('../../fixtures/manifests/', import.meta.url);

function readFixture(name: string): Record<string, unknown> {
  const parsed = parseManifestText(readFileSync(new URL(name, FIXTURES), 'utf8'));
  if (!parsed.ok) throw new Error(`${name}: ${parsed.violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`);
  return parsed.manifest as Record<string, unknown>;
}

const BOT_NAME = 'features.bot_user.display_name';

/** What each manifest is warned about, from what it holds (not from what the checker says). */
const EXPECTED_WARNINGS: Record<string, string[]> = {
  // A v1 manifest whose function parameters are in the v2 shape, with no function_runtime.
  'socket-starter.json': [
    BOT_NAME,
    'settings.function_runtime',
    'functions.summarize_updates.input_parameters',
    'functions.summarize_updates.output_parameters',
  ],
  'custom-step-v1.json': [BOT_NAME, 'settings.function_runtime'],
  // $schema is an editor hint: nothing to say about it.
  'agent-assistant.json': [BOT_NAME],
  // Fields the vendor added after the spec.
  'search-remote.json': ['features.search.enable_ai_answers', 'settings.hermes_app_type'],
  'mcp-external-auth.json': [BOT_NAME],
  'hosted-workflows.json': [BOT_NAME, 'functions.give_kudos.source_file'],
  'http-placeholders.yaml': [
    BOT_NAME,
    'features.slash_commands[0].url',
    'oauth_config.redirect_urls[0]',
    'settings.event_subscriptions.request_url',
    'settings.interactivity.request_url',
    'settings.interactivity.message_menu_options_url',
  ],
  'socket-user-scopes.yaml': ['settings.event_subscriptions.request_url'],
  'env-templated.yaml': [BOT_NAME, 'oauth_config.redirect_urls[0]', 'settings.event_subscriptions.request_url'],
  'directory-listed.yaml': [BOT_NAME],
  'next-version.yaml': ['_metadata.major_version'],
  'ema-mcp.yaml': [],
};

/** One real mistake per manifest, and the path the error must name. */
const MISTAKES: { file: string; mistake: string; set: [(string | number)[], unknown]; path: string }[] = [
  {
    file: 'socket-starter.json',
    mistake: 'a command without its /',
    set: [['features', 'slash_commands', 0, 'command'], 'standup'],
    path: 'features.slash_commands[0].command',
  },
  {
    file: 'custom-step-v1.json',
    mistake: 'functions without org_deploy_enabled',
    set: [['settings', 'org_deploy_enabled'], undefined],
    path: 'settings.org_deploy_enabled',
  },
  {
    file: 'agent-assistant.json',
    mistake: 'an assistant view without its description',
    set: [['features', 'assistant_view', 'assistant_description'], undefined],
    path: 'features.assistant_view.assistant_description',
  },
  {
    file: 'search-remote.json',
    mistake: 'search without its function',
    set: [['features', 'search', 'search_function_callback_id'], undefined],
    path: 'features.search.search_function_callback_id',
  },
  {
    file: 'mcp-external-auth.json',
    mistake: 'an account identifier that is no JSONPath',
    set: [['external_auth_providers', 'oauth2', 'code_host', 'options', 'identity_config', 'account_identifier'], 'login'],
    path: 'external_auth_providers.oauth2.code_host.options.identity_config.account_identifier',
  },
  {
    file: 'hosted-workflows.json',
    mistake: 'a URL as an outgoing domain',
    set: [['outgoing_domains', 0], 'https://api.giphy.com'],
    path: 'outgoing_domains[0]',
  },
  {
    file: 'hosted-workflows.json',
    mistake: "a reference in the vendor's namespace",
    set: [['metadata_events', 'kudos_reference', 'type'], 'slack#/types/kudos'],
    path: 'metadata_events.kudos_reference.type',
  },
  {
    file: 'http-placeholders.yaml',
    mistake: 'an http request URL',
    set: [['settings', 'event_subscriptions', 'request_url'], 'http://incidents.example.com/slack/events'],
    path: 'settings.event_subscriptions.request_url',
  },
  {
    file: 'socket-user-scopes.yaml',
    mistake: 'a flag written "yes"',
    set: [['settings', 'token_rotation_enabled'], 'yes'],
    path: 'settings.token_rotation_enabled',
  },
  {
    file: 'env-templated.yaml',
    mistake: 'an optional scope not among the scopes',
    set: [['oauth_config', 'scopes', 'bot_optional'], ['users:read']],
    path: 'oauth_config.scopes.bot_optional[0]',
  },
  {
    file: 'directory-listed.yaml',
    mistake: 'a directory listing without a privacy policy',
    set: [['app_directory', 'privacy_policy_url'], undefined],
    path: 'app_directory.privacy_policy_url',
  },
  { file: 'next-version.yaml', mistake: 'a version that is no number', set: [['_metadata', 'major_version'], 'three'], path: '_metadata.major_version' },
  {
    file: 'ema-mcp.yaml',
    mistake: 'an auth type the spec does not list',
    set: [['mcp_servers', 'status', 'auth_type'], 'oauth'],
    path: 'mcp_servers.status.auth_type',
  },
];

/** A copy of `manifest` with the value at `keys` set (undefined removes it). */
function withValue(manifest: Record<string, unknown>, keys: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(manifest);
  let parent = copy as Record<string | number, unknown>;
  for (const key of keys.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = keys.at(-1)!;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

const bySeverity = (manifest: unknown, severity: 'error' | 'warning') =>
  checkAppManifest(manifest)
    .filter((v) => v.severity === severity)
    .map((v) => v.path);

describe('manifests in the image of the ones real apps ship', () => {
  it('the corpus holds every fixture, YAML and JSON', () => {
    const files = readdirSync(FIXTURES).sort();
    expect(files).toEqual(Object.keys(EXPECTED_WARNINGS).sort());
    expect(files.some((f) => f.endsWith('.yaml')) && files.some((f) => f.endsWith('.json'))).toBe(true);
  });

  it.each(Object.entries(EXPECTED_WARNINGS))('%s: no error, and a warning at each path that deserves one', (file, warnings) => {
    const manifest = readFixture(file);
    expect(bySeverity(manifest, 'error')).toEqual([]);
    expect(bySeverity(manifest, 'warning').sort()).toEqual([...warnings].sort());
  });

  it.each(MISTAKES.map((m) => [`${m.file}: ${m.mistake}`, m] as const))('%s: an error at its path', (_name, { file, set, path }) => {
    const broken = withValue(readFixture(file), set[0], set[1]);
    expect(bySeverity(broken, 'error')).toEqual([path]);
  });
});
