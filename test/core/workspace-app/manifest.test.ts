/**
 * The app manifest rules, written from the spec's "App manifest" table, Limits and Versioning
 * (developer-interface.md), not from the schema: a manifest that uses every group passes, and
 * one broken manifest per stated rule fails with exactly the path the rule is about.
 */
import { describe, expect, it } from 'vitest';
import { checkAppManifest } from '../../../src/core/workspace-app/manifest-schema.ts';
import { APP_BOT_SCOPES, appManifest } from '../../../src/core/workspace-app/manifest.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A v2 manifest that uses every top-level group and most fields, each value within the spec. */
const FULL_V2: JsonObject = {
  _metadata: { major_version: 2, minor_version: 1 },
  app_directory: {
    app_directory_categories: ['productivity'],
    use_direct_install: true,
    direct_install_url: 'https://status.example.com/install',
    installation_landing_page: 'http://status.example.com/',
    privacy_policy_url: 'https://status.example.com/privacy',
    support_url: 'https://status.example.com/support',
    support_email: 'support@example.com',
    supported_languages: ['en', 'fr'],
    pricing: 'Free',
  },
  display_information: {
    name: 'Status Watch',
    description: 'Vendor incidents in a channel',
    long_description: 'Posts every incident of the vendor. '.repeat(6),
    background_color: '#1d4ed8',
  },
  features: {
    app_home: { home_tab_enabled: true, messages_tab_enabled: true, messages_tab_read_only_enabled: false },
    agent_view: {
      actions: [{ name: 'Check', description: 'Check a service' }],
      agent_description: 'Answers questions about the status of the vendor',
      suggested_prompts: [{ title: 'Now', message: 'What is down right now?' }],
    },
    assistant_view: {
      actions: [{ name: 'Check', description: 'Check a service' }],
      assistant_description: 'The older view',
      suggested_prompts: [{ title: 'Now', message: 'What is down?' }],
    },
    bot_user: { display_name: 'status-watch.bot_2', always_online: true },
    rich_previews: { is_active: true, entity_types: ['service#/entities/task'] },
    search: {
      search_function_callback_id: 'search_incidents',
      search_filters_function_callback_id: 'search_filters',
      slackbot_metadata: { description: 'Incidents of the vendor', examples: ['huddles', 'login'], example_query: 'login outage' },
    },
    shortcuts: [{ name: 'Report', callback_id: 'report_problem', description: 'Report a problem', type: 'global' }],
    slash_commands: [
      { command: '/status', description: 'Current status', should_escape: false, url: 'https://status.example.com/app/commands', usage_hint: '[service]' },
    ],
    unfurl_domains: ['status.example.com'],
    workflow_steps: [{ name: 'Post status', callback_id: 'post_status' }],
  },
  oauth_config: {
    pkce_enabled: true,
    redirect_urls: ['https://status.example.com/app/oauth/callback'],
    scopes: { bot: ['chat:write', 'commands'], user: ['search:read'], bot_optional: ['commands'], user_optional: ['search:read'] },
    token_management_enabled: true,
    is_enterprise_managed_auth_supported: true,
  },
  settings: {
    allowed_ip_address_ranges: ['203.0.113.0/24', '198.51.100.7', '2001:db8::/32'],
    event_subscriptions: {
      request_url: 'https://status.example.com/app/events',
      bot_events: ['app_home_opened', 'message.im'],
      user_events: ['reaction_added'],
      metadata_subscriptions: [{ app_id: '*', event_type: 'star_added' }],
    },
    incoming_webhooks: { incoming_webhooks_enabled: false },
    interactivity: {
      is_enabled: true,
      request_url: 'https://status.example.com/app/interactivity',
      message_menu_options_url: 'https://status.example.com/app/options',
    },
    org_deploy_enabled: true,
    socket_mode_enabled: false,
    token_rotation_enabled: true,
    is_hosted: false,
    is_mcp_enabled: true,
    siws_links: { initiate_uri: 'https://status.example.com/siws' },
    function_runtime: 'slack',
  },
  functions: {
    notify_status: {
      title: 'Notify',
      description: 'Posts the status to a channel',
      input_parameters: { properties: { channel_id: { type: 'service#/types/channel_id', title: 'Channel' } }, required: ['channel_id'] },
      output_parameters: { properties: { message_ts: { type: 'string' } }, required: [] },
    },
  },
  workflows: {
    post_status: {
      title: 'Post status',
      description: 'Posts the status when asked',
      input_parameters: { properties: { channel_id: { type: 'service#/types/channel_id' } }, required: ['channel_id'] },
      output_parameters: { properties: {}, required: [] },
      steps: [{ id: '0', function_id: '#/functions/notify_status', inputs: { channel_id: '{{inputs.channel_id}}' }, type: 'function' }],
      suggested_triggers: { from_link: { name: 'Post', description: 'Post the status now', type: 'shortcut', inputs: {} } },
    },
  },
  datastores: {
    drafts: {
      primary_key: 'id',
      attributes: {
        id: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        author: { type: 'object', properties: { name: { type: 'string' } } },
      },
      time_to_live_attribute: 'expires_at',
    },
  },
  outgoing_domains: ['api.example.com', 'a1.example-cdn.net'],
  types: { incident_ref: { type: 'string', title: 'Incident', description: 'An incident id', is_required: false, is_hidden: false, hint: 'like 1580' } },
  metadata_events: {
    incident_changed: {
      type: 'object',
      title: 'Incident changed',
      description: 'An incident of the vendor changed',
      properties: {
        id: { type: 'string' },
        severity: { type: 'string', choices: [{ value: 'high', title: 'High' }] },
        owner: { type: 'acme#/types/person' },
      },
      required: ['id'],
      additionalProperties: false,
      nullable: false,
      examples: [{ id: '1580' }],
      render_condition: { operator: 'AND', conditions: [] },
    },
  },
  external_auth_providers: {
    oauth2: {
      acme: {
        provider_type: 'CUSTOM',
        options: {
          client_id: 'client-123',
          scope: ['read'],
          provider_name: 'Acme',
          authorization_url: 'https://auth.example.com/authorize',
          token_url: 'https://auth.example.com/token',
          identity_config: {
            url: 'https://auth.example.com/me',
            account_identifier: '$.user.id',
            headers: {},
            body: {},
            http_method_type: 'GET',
          },
          authorization_url_extras: { prompt: 'consent' },
          use_pkce: true,
          token_url_config: { use_basic_auth_scheme: false },
        },
      },
    },
  },
  compliance: { fedramp_authorization: 'moderate', dod_srg_ilx: 'IL4', itar_compliant: 'yes' },
  mcp_servers: { status: { url: 'https://status.example.com/mcp', auth_provider_key: 'acme', auth_type: 'manual_auth', headers: { 'X-Team': 'ops' } } },
};

const NOTIFY_STATUS = (FULL_V2.functions as JsonObject).notify_status!;
const ACME_PROVIDER = ((FULL_V2.external_auth_providers as JsonObject).oauth2 as JsonObject).acme!;

/** The same app in manifest v1: parameters map names straight to definitions, steps have no type. */
const FULL_V1: JsonObject = edited(FULL_V2, [
  ['_metadata', { major_version: 1, minor_version: 0 }],
  ['functions.notify_status.input_parameters', { channel_id: { type: 'service#/types/channel_id', title: 'Channel', is_required: true } }],
  ['functions.notify_status.output_parameters', { message_ts: { type: 'string', name: 'message_ts', hint: 'the message', is_required: false } }],
  ['workflows.post_status.steps[0].type', undefined],
]);

/** `features.slash_commands[0].command` as keys. */
function keysOf(path: string): (string | number)[] {
  return [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

/** A copy of `base` with each path set to its value (undefined removes the field). */
function edited(base: JsonObject, edits: [string, Json | undefined][]): JsonObject {
  const copy = structuredClone(base);
  for (const [path, value] of edits) {
    const keys = keysOf(path);
    let parent: Json = copy;
    for (const key of keys.slice(0, -1)) parent = (parent as Record<string | number, Json>)[key]!;
    const last = keys.at(-1)!;
    if (value === undefined) {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete (parent as JsonObject)[last];
    } else {
      (parent as Record<string | number, Json>)[last] = value;
    }
  }
  return copy;
}

const chars = (count: number, char = 'a') => char.repeat(count);
const many = <T extends Json>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, i) => make(i));
const paths = (manifest: unknown) => checkAppManifest(manifest).map((v) => v.path);

describe('manifests within the spec', () => {
  it('pass: every group in v2, the same app in v1, and the least a manifest can be', () => {
    expect(checkAppManifest(FULL_V2)).toEqual([]);
    expect(checkAppManifest(FULL_V1)).toEqual([]);
    expect(checkAppManifest({ display_information: { name: 'Status' } })).toEqual([]);
  });

  it('pass at each stated limit', () => {
    const atLimits: [string, Json][] = [
      ['display_information.name', chars(35)],
      ['display_information.name', chars(35, '🚦')], // characters, not UTF-16 units
      ['display_information.description', chars(140)],
      ['display_information.long_description', chars(4000)],
      ['display_information.long_description', 'Short.'], // the 174-character minimum is the in-product editor's
      ['display_information.background_color', '#AbC'],
      ['features.agent_view.agent_description', chars(300)],
      ['features.bot_user.display_name', chars(80, 'z')],
      ['features.search.slackbot_metadata.examples', many(5, (i) => `example ${i}`)],
      ['features.shortcuts', many(10, (i) => ({ name: `s${i}`, callback_id: chars(255), description: chars(150), type: 'message' }))],
      ['features.slash_commands', many(50, (i) => ({ command: `/c${i}`, description: chars(2000), usage_hint: chars(1000) }))],
      ['features.slash_commands[0].command', `/${chars(31)}`],
      ['features.unfurl_domains', many(5, (i) => `d${i}.example.com`)],
      ['features.workflow_steps', many(10, () => ({ name: chars(50), callback_id: chars(50) }))],
      ['oauth_config.redirect_urls', many(1000, (i) => `https://status.example.com/cb/${i}`)],
      ['oauth_config.scopes.bot', [...many(254, (i) => `scope:${i}`), 'commands']],
      ['oauth_config.scopes.user', [...many(254, (i) => `scope:${i}`), 'search:read']],
      ['settings.allowed_ip_address_ranges', many(10, (i) => `10.0.${i}.0/24`)],
      ['settings.event_subscriptions.bot_events', many(100, (i) => `event_${i}`)],
      ['settings.event_subscriptions.user_events', many(100, (i) => `event_${i}`)],
      ['outgoing_domains', many(10, (i) => `api${i}.example.com`)],
      ['types', Object.fromEntries(many(50, (i) => [`type_${i}`, { type: 'string' }]))],
      ['mcp_servers', Object.fromEntries(many(20, (i) => [`server_${i}`, { url: `https://mcp${i}.example.com/${chars(400)}` }]))],
      ['external_auth_providers.oauth2.acme.options.client_id', chars(1024)],
      ['metadata_events.incident_changed.properties', Object.fromEntries(many(50, (i) => [`p${i}`, { type: 'string' }]))],
      ['metadata_events.incident_changed.examples', many(10, (i) => ({ id: String(i) }))],
    ];
    for (const [path, value] of atLimits) expect(checkAppManifest(edited(FULL_V2, [[path, value]])), path).toEqual([]);
    const longKey = chars(100, 'f');
    const renamed = edited(FULL_V2, [[`functions.${longKey}`, NOTIFY_STATUS]]);
    expect(checkAppManifest(renamed)).toEqual([]);
    const longProvider = chars(255);
    const namedAtLimit = edited(FULL_V2, [
      [`external_auth_providers.oauth2.${longProvider}`, ACME_PROVIDER],
      ['mcp_servers.status.auth_provider_key', longProvider],
    ]);
    expect(checkAppManifest(namedAtLimit)).toEqual([]);
  });
});

/**
 * One rule of the spec each: the edits that break it and the one path that must be reported, as
 * an error unless `warning` (a rule the vendor's own sample apps break, or an unknown field).
 */
type BrokenCase = { rule: string; edits: [string, Json | undefined][]; path: string; base?: JsonObject; warning?: true };

const BROKEN: BrokenCase[] = [
  { rule: 'top-level groups are the fifteen listed', edits: [['display_info', { name: 'x' }]], path: 'display_info', warning: true },
  { rule: 'a manifest is an object', edits: [], path: '(root)', base: 'a manifest' as unknown as JsonObject },
  { rule: '_metadata.major_version is an integer', edits: [['_metadata.major_version', 2.5]], path: '_metadata.major_version' },
  { rule: '_metadata.minor_version is an integer', edits: [['_metadata.minor_version', '1']], path: '_metadata.minor_version' },
  {
    rule: 'major_version selects a schema version the spec describes (1 or 2)',
    edits: [['_metadata.major_version', 3]],
    path: '_metadata.major_version',
    warning: true,
  },
  { rule: 'major_version is a version number', edits: [['_metadata.major_version', 0]], path: '_metadata.major_version' },
  ...['installation_landing_page', 'privacy_policy_url', 'support_url', 'support_email', 'supported_languages', 'pricing'].map(
    (field): BrokenCase => ({
      rule: `app_directory.${field} is required if app_directory is present`,
      edits: [[`app_directory.${field}`, undefined]],
      path: `app_directory.${field}`,
    }),
  ),
  {
    rule: 'direct_install_url matches ^https?://',
    edits: [['app_directory.direct_install_url', 'ftp://status.example.com/']],
    path: 'app_directory.direct_install_url',
  },
  {
    rule: 'installation_landing_page matches ^https?://',
    edits: [['app_directory.installation_landing_page', 'status.example.com']],
    path: 'app_directory.installation_landing_page',
  },
  {
    rule: 'app_directory_categories is an array of string',
    edits: [['app_directory.app_directory_categories', [1]]],
    path: 'app_directory.app_directory_categories[0]',
  },
  { rule: 'use_direct_install is a boolean', edits: [['app_directory.use_direct_install', 'true']], path: 'app_directory.use_direct_install' },
  { rule: 'display_information is required', edits: [['display_information', undefined]], path: 'display_information' },
  { rule: 'display_information.name is required', edits: [['display_information.name', undefined]], path: 'display_information.name' },
  { rule: 'display_information.name is at most 35 characters', edits: [['display_information.name', chars(36)]], path: 'display_information.name' },
  { rule: 'description is at most 140 characters', edits: [['display_information.description', chars(141)]], path: 'display_information.description' },
  {
    rule: 'long_description is at most 4000 characters',
    edits: [['display_information.long_description', chars(4001)]],
    path: 'display_information.long_description',
  },
  ...['#12', '1d4ed8', '#1d4ed', '#1d4ed8ff', '#ggg', 'blue'].map(
    (colour): BrokenCase => ({
      rule: `background_color is hex with a leading #, 3 or 6 digits (${colour})`,
      edits: [['display_information.background_color', colour]],
      path: 'display_information.background_color',
    }),
  ),
  {
    rule: 'app_home flags are booleans',
    edits: [['features.app_home.messages_tab_read_only_enabled', 'false']],
    path: 'features.app_home.messages_tab_read_only_enabled',
  },
  {
    rule: 'agent_description is required if agent_view is present',
    edits: [['features.agent_view.agent_description', undefined]],
    path: 'features.agent_view.agent_description',
  },
  {
    rule: 'agent_description is at most 300 characters',
    edits: [['features.agent_view.agent_description', chars(301)]],
    path: 'features.agent_view.agent_description',
  },
  {
    rule: 'agent_view.actions are {name, description}',
    edits: [['features.agent_view.actions[0].description', undefined]],
    path: 'features.agent_view.actions[0].description',
  },
  {
    rule: 'agent_view.suggested_prompts are {title, message}',
    edits: [['features.agent_view.suggested_prompts[0].message', 7]],
    path: 'features.agent_view.suggested_prompts[0].message',
  },
  {
    rule: 'assistant_description is required if assistant_view is present',
    edits: [['features.assistant_view.assistant_description', undefined]],
    path: 'features.assistant_view.assistant_description',
  },
  {
    rule: "assistant_view.actions have agent_view's shape",
    edits: [['features.assistant_view.actions[0].name', undefined]],
    path: 'features.assistant_view.actions[0].name',
  },
  {
    rule: 'bot_user.display_name is required if bot_user is present',
    edits: [['features.bot_user.display_name', undefined]],
    path: 'features.bot_user.display_name',
  },
  { rule: 'bot_user.display_name is at most 80 characters', edits: [['features.bot_user.display_name', chars(81)]], path: 'features.bot_user.display_name' },
  ...['Status', 'status watch', 'status@watch', 'statüs', 'status/watch'].map(
    (name): BrokenCase => ({
      rule: `bot_user.display_name allows only a-z, 0-9, -, _, . (${name})`,
      edits: [['features.bot_user.display_name', name]],
      path: 'features.bot_user.display_name',
      warning: true,
    }),
  ),
  { rule: 'bot_user.always_online is a boolean', edits: [['features.bot_user.always_online', 1]], path: 'features.bot_user.always_online' },
  { rule: 'rich_previews.is_active is a boolean', edits: [['features.rich_previews.is_active', 'yes']], path: 'features.rich_previews.is_active' },
  {
    rule: 'search_function_callback_id is required if search is present',
    edits: [['features.search.search_function_callback_id', undefined]],
    path: 'features.search.search_function_callback_id',
  },
  {
    rule: 'slackbot_metadata.examples is an array of at most 5',
    edits: [['features.search.slackbot_metadata.examples', many(6, (i) => `e${i}`)]],
    path: 'features.search.slackbot_metadata.examples',
  },
  {
    rule: 'shortcuts: at most 10',
    edits: [['features.shortcuts', many(11, (i) => ({ name: `s${i}`, callback_id: `s${i}`, description: 'd', type: 'global' }))]],
    path: 'features.shortcuts',
  },
  { rule: 'each shortcut requires a name', edits: [['features.shortcuts[0].name', undefined]], path: 'features.shortcuts[0].name' },
  { rule: 'shortcut callback_id is at most 255', edits: [['features.shortcuts[0].callback_id', chars(256)]], path: 'features.shortcuts[0].callback_id' },
  { rule: 'shortcut description is at most 150', edits: [['features.shortcuts[0].description', chars(151)]], path: 'features.shortcuts[0].description' },
  { rule: 'shortcut type is message or global', edits: [['features.shortcuts[0].type', 'channel']], path: 'features.shortcuts[0].type' },
  {
    rule: 'slash_commands: at most 50',
    edits: [['features.slash_commands', many(51, (i) => ({ command: `/c${i}`, description: 'd' }))]],
    path: 'features.slash_commands',
  },
  { rule: 'slash command: command is required', edits: [['features.slash_commands[0].command', undefined]], path: 'features.slash_commands[0].command' },
  {
    rule: 'slash command: command includes the leading /',
    edits: [['features.slash_commands[0].command', 'status']],
    path: 'features.slash_commands[0].command',
  },
  {
    rule: 'slash command: command is at most 32',
    edits: [['features.slash_commands[0].command', `/${chars(32)}`]],
    path: 'features.slash_commands[0].command',
  },
  {
    rule: 'slash command: description is required',
    edits: [['features.slash_commands[0].description', undefined]],
    path: 'features.slash_commands[0].description',
  },
  {
    rule: 'slash command: description is at most 2000',
    edits: [['features.slash_commands[0].description', chars(2001)]],
    path: 'features.slash_commands[0].description',
  },
  {
    rule: 'slash command: should_escape is a boolean',
    edits: [['features.slash_commands[0].should_escape', 'false']],
    path: 'features.slash_commands[0].should_escape',
  },
  {
    rule: 'slash command: url is an https URL',
    edits: [['features.slash_commands[0].url', 'http://status.example.com/app/commands']],
    path: 'features.slash_commands[0].url',
  },
  { rule: 'slash command: url is a URL', edits: [['features.slash_commands[0].url', 'https://']], path: 'features.slash_commands[0].url' },
  {
    rule: 'slash command: usage_hint is at most 1000',
    edits: [['features.slash_commands[0].usage_hint', chars(1001)]],
    path: 'features.slash_commands[0].usage_hint',
  },
  { rule: 'unfurl_domains: at most 5', edits: [['features.unfurl_domains', many(6, (i) => `d${i}.example.com`)]], path: 'features.unfurl_domains' },
  {
    rule: 'workflow_steps: at most 10',
    edits: [['features.workflow_steps', many(11, (i) => ({ name: `n${i}`, callback_id: `c${i}` }))]],
    path: 'features.workflow_steps',
  },
  { rule: 'workflow step name is at most 50', edits: [['features.workflow_steps[0].name', chars(51)]], path: 'features.workflow_steps[0].name' },
  {
    rule: 'workflow step requires callback_id',
    edits: [['features.workflow_steps[0].callback_id', undefined]],
    path: 'features.workflow_steps[0].callback_id',
  },
  {
    rule: 'workflow step callback_id is at most 50',
    edits: [['features.workflow_steps[0].callback_id', chars(51)]],
    path: 'features.workflow_steps[0].callback_id',
  },
  { rule: 'features has no group the spec does not list', edits: [['features.slash_command', []]], path: 'features.slash_command', warning: true },
  {
    rule: 'redirect_urls: at most 1000',
    edits: [['oauth_config.redirect_urls', many(1001, (i) => `https://status.example.com/cb/${i}`)]],
    path: 'oauth_config.redirect_urls',
  },
  { rule: 'scopes.bot: at most 255', edits: [['oauth_config.scopes.bot', many(256, (i) => `scope:${i}`)]], path: 'oauth_config.scopes.bot' },
  {
    rule: 'scopes.user: at most 255',
    edits: [
      ['oauth_config.scopes.user', many(256, (i) => `scope:${i}`)],
      ['oauth_config.scopes.user_optional', undefined],
    ],
    path: 'oauth_config.scopes.user',
  },
  {
    rule: 'bot_optional scopes are also in bot',
    edits: [['oauth_config.scopes.bot_optional', ['commands', 'channels:join']]],
    path: 'oauth_config.scopes.bot_optional[1]',
  },
  { rule: 'user_optional scopes are also in user', edits: [['oauth_config.scopes.user_optional', ['admin']]], path: 'oauth_config.scopes.user_optional[0]' },
  { rule: 'user_optional needs user even when user is absent', edits: [['oauth_config.scopes.user', undefined]], path: 'oauth_config.scopes.user_optional[0]' },
  { rule: 'pkce_enabled is a boolean', edits: [['oauth_config.pkce_enabled', 'true']], path: 'oauth_config.pkce_enabled' },
  { rule: 'token_management_enabled is a boolean', edits: [['oauth_config.token_management_enabled', 0]], path: 'oauth_config.token_management_enabled' },
  {
    rule: 'is_enterprise_managed_auth_supported is a boolean',
    edits: [['oauth_config.is_enterprise_managed_auth_supported', 'yes']],
    path: 'oauth_config.is_enterprise_managed_auth_supported',
  },
  {
    rule: 'allowed_ip_address_ranges: at most 10',
    edits: [['settings.allowed_ip_address_ranges', many(11, (i) => `10.0.${i}.1`)]],
    path: 'settings.allowed_ip_address_ranges',
  },
  ...['status.example.com', '10.0.0.256', '10.0.0.0/33', '2001:db8::/129', ''].map(
    (range): BrokenCase => ({
      rule: `allowed_ip_address_ranges are IP addresses (${range})`,
      edits: [['settings.allowed_ip_address_ranges[1]', range]],
      path: 'settings.allowed_ip_address_ranges[1]',
    }),
  ),
  {
    rule: 'event_subscriptions.request_url is an https URL',
    edits: [['settings.event_subscriptions.request_url', 'http://status.example.com/events']],
    path: 'settings.event_subscriptions.request_url',
  },
  {
    rule: 'bot_events: at most 100',
    edits: [['settings.event_subscriptions.bot_events', many(101, (i) => `e${i}`)]],
    path: 'settings.event_subscriptions.bot_events',
  },
  {
    rule: 'user_events: at most 100',
    edits: [['settings.event_subscriptions.user_events', many(101, (i) => `e${i}`)]],
    path: 'settings.event_subscriptions.user_events',
  },
  {
    rule: 'metadata_subscriptions are {app_id, event_type}',
    edits: [['settings.event_subscriptions.metadata_subscriptions[0].event_type', undefined]],
    path: 'settings.event_subscriptions.metadata_subscriptions[0].event_type',
  },
  {
    rule: 'incoming_webhooks_enabled is a boolean',
    edits: [['settings.incoming_webhooks.incoming_webhooks_enabled', 'on']],
    path: 'settings.incoming_webhooks.incoming_webhooks_enabled',
  },
  {
    rule: 'interactivity.is_enabled is required when interactivity is present',
    edits: [['settings.interactivity.is_enabled', undefined]],
    path: 'settings.interactivity.is_enabled',
  },
  {
    rule: 'interactivity.request_url is an https URL',
    edits: [['settings.interactivity.request_url', 'http://status.example.com/app/interactivity']],
    path: 'settings.interactivity.request_url',
  },
  {
    rule: 'interactivity.message_menu_options_url is an https URL',
    edits: [['settings.interactivity.message_menu_options_url', 'not a url']],
    path: 'settings.interactivity.message_menu_options_url',
  },
  { rule: 'org_deploy_enabled is required for functions', edits: [['settings.org_deploy_enabled', undefined]], path: 'settings.org_deploy_enabled' },
  ...['socket_mode_enabled', 'token_rotation_enabled', 'is_hosted', 'is_mcp_enabled'].map(
    (field): BrokenCase => ({ rule: `settings.${field} is a boolean`, edits: [[`settings.${field}`, 'true']], path: `settings.${field}` }),
  ),
  {
    rule: 'siws_links.initiate_uri matches ^https://',
    edits: [['settings.siws_links.initiate_uri', 'http://status.example.com/siws']],
    path: 'settings.siws_links.initiate_uri',
  },
  {
    rule: 'function_runtime is required if functions are used',
    edits: [
      ['settings.function_runtime', undefined],
      ['outgoing_domains', undefined],
    ],
    path: 'settings.function_runtime',
    warning: true,
  },
  {
    rule: 'function_runtime is remote or slack',
    edits: [
      ['settings.function_runtime', 'lambda'],
      ['outgoing_domains', undefined],
    ],
    path: 'settings.function_runtime',
  },
  { rule: 'function callback_id is snake_case', edits: [['functions.NotifyStatus', NOTIFY_STATUS]], path: 'functions.NotifyStatus' },
  { rule: 'function callback_id is at most 100', edits: [[`functions.${chars(101, 'f')}`, NOTIFY_STATUS]], path: `functions.${chars(101, 'f')}` },
  { rule: 'function title is required', edits: [['functions.notify_status.title', undefined]], path: 'functions.notify_status.title' },
  { rule: 'function title is at most 255', edits: [['functions.notify_status.title', chars(256)]], path: 'functions.notify_status.title' },
  { rule: 'function description is required', edits: [['functions.notify_status.description', undefined]], path: 'functions.notify_status.description' },
  {
    rule: 'function input_parameters is required',
    edits: [['functions.notify_status.input_parameters', undefined]],
    path: 'functions.notify_status.input_parameters',
  },
  {
    rule: 'function output_parameters is a required object',
    edits: [['functions.notify_status.output_parameters', []]],
    path: 'functions.notify_status.output_parameters',
  },
  {
    rule: 'v2 parameter definitions have no is_required',
    edits: [['functions.notify_status.input_parameters.properties.channel_id.is_required', true]],
    path: 'functions.notify_status.input_parameters.properties.channel_id.is_required',
  },
  {
    rule: 'v2 parameters hold a properties map',
    edits: [['functions.notify_status.output_parameters', { required: [] }]],
    path: 'functions.notify_status.output_parameters.properties',
  },
  {
    rule: 'v2 required lists names of properties',
    edits: [['functions.notify_status.input_parameters.required', ['channel']]],
    path: 'functions.notify_status.input_parameters.required[0]',
  },
  {
    rule: 'v1 parameters are definitions, not a required list',
    base: FULL_V1,
    edits: [['functions.notify_status.output_parameters', { message_ts: { type: 'string' }, required: ['message_ts'] }]],
    path: 'functions.notify_status.output_parameters.required',
  },
  {
    rule: 'v1 definitions are objects {type, title, ...}',
    base: FULL_V1,
    edits: [['functions.notify_status.input_parameters.channel_id.title', 5]],
    path: 'functions.notify_status.input_parameters.channel_id.title',
  },
  {
    rule: 'a manifest without _metadata is v1: v1 definitions are objects',
    base: FULL_V1,
    edits: [
      ['_metadata', undefined],
      ['functions.notify_status.input_parameters.channel_id', 'channel'],
    ],
    path: 'functions.notify_status.input_parameters.channel_id',
  },
  { rule: 'workflow title is required', edits: [['workflows.post_status.title', undefined]], path: 'workflows.post_status.title' },
  { rule: 'workflow description is required', edits: [['workflows.post_status.description', undefined]], path: 'workflows.post_status.description' },
  { rule: 'workflow steps are required', edits: [['workflows.post_status.steps', undefined]], path: 'workflows.post_status.steps' },
  {
    rule: 'workflow steps are {id, function_id, inputs}',
    edits: [['workflows.post_status.steps[0].function_id', undefined]],
    path: 'workflows.post_status.steps[0].function_id',
  },
  {
    rule: 'v2 step type is function, switch or conditional',
    edits: [['workflows.post_status.steps[0].type', 'loop']],
    path: 'workflows.post_status.steps[0].type',
  },
  {
    rule: 'v1 steps have no type (v2 adds it)',
    base: FULL_V1,
    edits: [['workflows.post_status.steps[0].type', 'function']],
    path: 'workflows.post_status.steps[0].type',
  },
  {
    rule: 'workflow parameters: properties with types',
    edits: [['workflows.post_status.input_parameters.properties.channel_id.type', undefined]],
    path: 'workflows.post_status.input_parameters.properties.channel_id.type',
  },
  {
    rule: 'workflow parameters: a required list',
    edits: [['workflows.post_status.input_parameters.required', 'channel_id']],
    path: 'workflows.post_status.input_parameters.required',
  },
  {
    rule: 'suggested triggers are {name, description, type, inputs}',
    edits: [['workflows.post_status.suggested_triggers.from_link.type', undefined]],
    path: 'workflows.post_status.suggested_triggers.from_link.type',
  },
  { rule: 'datastore primary_key is required', edits: [['datastores.drafts.primary_key', undefined]], path: 'datastores.drafts.primary_key' },
  { rule: 'datastore attribute type is required', edits: [['datastores.drafts.attributes.id.type', undefined]], path: 'datastores.drafts.attributes.id.type' },
  {
    rule: 'datastore time_to_live_attribute is a string',
    edits: [['datastores.drafts.time_to_live_attribute', 5]],
    path: 'datastores.drafts.time_to_live_attribute',
  },
  { rule: 'outgoing_domains: at most 10', edits: [['outgoing_domains', many(11, (i) => `api${i}.example.com`)]], path: 'outgoing_domains' },
  ...['.example.com', '-example.com', 'example.com-', 'example.com.', 'exa mple.com', 'example_com.net', 'https://example.com'].map(
    (name): BrokenCase => ({
      rule: `outgoing domains match the domain pattern (${name})`,
      edits: [['outgoing_domains[1]', name]],
      path: 'outgoing_domains[1]',
    }),
  ),
  { rule: 'outgoing_domains are for function_runtime slack', edits: [['settings.function_runtime', 'remote']], path: 'outgoing_domains' },
  { rule: 'types: at most 50', edits: [['types', Object.fromEntries(many(51, (i) => [`type_${i}`, { type: 'string' }]))]], path: 'types' },
  { rule: 'each type requires type', edits: [['types.incident_ref.type', undefined]], path: 'types.incident_ref.type' },
  { rule: 'metadata event object requires type', edits: [['metadata_events.incident_changed.type', undefined]], path: 'metadata_events.incident_changed.type' },
  {
    rule: 'metadata event properties: at most 50',
    edits: [
      ['metadata_events.incident_changed.properties', Object.fromEntries(many(51, (i) => [`p${i}`, { type: 'string' }]))],
      ['metadata_events.incident_changed.required', []],
    ],
    path: 'metadata_events.incident_changed.properties',
  },
  {
    rule: 'choices items require title',
    edits: [['metadata_events.incident_changed.properties.severity.choices[0].title', undefined]],
    path: 'metadata_events.incident_changed.properties.severity.choices[0].title',
  },
  {
    rule: 'choices items require value',
    edits: [['metadata_events.incident_changed.properties.severity.choices[0].value', undefined]],
    path: 'metadata_events.incident_changed.properties.severity.choices[0].value',
  },
  {
    rule: 'render_condition requires operator',
    edits: [['metadata_events.incident_changed.render_condition.operator', undefined]],
    path: 'metadata_events.incident_changed.render_condition.operator',
  },
  {
    rule: 'render_condition requires conditions',
    edits: [['metadata_events.incident_changed.render_condition.conditions', undefined]],
    path: 'metadata_events.incident_changed.render_condition.conditions',
  },
  {
    rule: 'a reference object has type and examples only',
    edits: [['metadata_events.incident_changed', { type: 'acme#/types/incident', title: 'Incident' }]],
    path: 'metadata_events.incident_changed.title',
    warning: true,
  },
  {
    rule: 'metadata event examples: at most 10',
    edits: [['metadata_events.incident_changed.examples', many(11, (i) => ({ id: String(i) }))]],
    path: 'metadata_events.incident_changed.examples',
  },
  ...['slack#/types/user', 'Slack#/types/user', 'acme#/types', 'acme#types/person', 'acme#/types/person/name', '#/types/person'].map(
    (type): BrokenCase => ({
      rule: `a reference is <namespace>#/<segment>/<segment>, not the vendor's (${type})`,
      edits: [['metadata_events.incident_changed.properties.owner.type', type]],
      path: 'metadata_events.incident_changed.properties.owner.type',
    }),
  ),
  {
    rule: 'provider_type is CUSTOM or SLACK_PROVIDED',
    edits: [['external_auth_providers.oauth2.acme.provider_type', 'OTHER']],
    path: 'external_auth_providers.oauth2.acme.provider_type',
  },
  {
    rule: 'options.client_id is at most 1024',
    edits: [['external_auth_providers.oauth2.acme.options.client_id', chars(1025)]],
    path: 'external_auth_providers.oauth2.acme.options.client_id',
  },
  {
    rule: 'options.scope is an array of string',
    edits: [['external_auth_providers.oauth2.acme.options.scope', 'read']],
    path: 'external_auth_providers.oauth2.acme.options.scope',
  },
  ...['provider_name', 'authorization_url', 'token_url', 'identity_config'].map(
    (field): BrokenCase => ({
      rule: `CUSTOM providers give ${field}`,
      edits: [[`external_auth_providers.oauth2.acme.options.${field}`, undefined]],
      path: `external_auth_providers.oauth2.acme.options.${field}`,
    }),
  ),
  {
    rule: 'provider_name is at most 255',
    edits: [['external_auth_providers.oauth2.acme.options.provider_name', chars(256)]],
    path: 'external_auth_providers.oauth2.acme.options.provider_name',
  },
  {
    rule: 'authorization_url is https',
    edits: [['external_auth_providers.oauth2.acme.options.authorization_url', 'http://auth.example.com/authorize']],
    path: 'external_auth_providers.oauth2.acme.options.authorization_url',
  },
  {
    rule: 'token_url is at most 255',
    edits: [['external_auth_providers.oauth2.acme.options.token_url', `https://auth.example.com/${chars(231)}`]],
    path: 'external_auth_providers.oauth2.acme.options.token_url',
  },
  {
    rule: 'identity_config.url is https, 5-255',
    edits: [['external_auth_providers.oauth2.acme.options.identity_config.url', `https://auth.example.com/${chars(231)}`]],
    path: 'external_auth_providers.oauth2.acme.options.identity_config.url',
  },
  {
    rule: 'identity_config.account_identifier is 1-255 long',
    edits: [['external_auth_providers.oauth2.acme.options.identity_config.account_identifier', '']],
    path: 'external_auth_providers.oauth2.acme.options.identity_config.account_identifier',
  },
  {
    rule: 'identity_config.http_method_type is GET or POST',
    edits: [['external_auth_providers.oauth2.acme.options.identity_config.http_method_type', 'PUT']],
    path: 'external_auth_providers.oauth2.acme.options.identity_config.http_method_type',
  },
  {
    rule: 'use_pkce is a boolean',
    edits: [['external_auth_providers.oauth2.acme.options.use_pkce', 'yes']],
    path: 'external_auth_providers.oauth2.acme.options.use_pkce',
  },
  {
    rule: 'token_url_config.use_basic_auth_scheme is a boolean',
    edits: [['external_auth_providers.oauth2.acme.options.token_url_config.use_basic_auth_scheme', 'no']],
    path: 'external_auth_providers.oauth2.acme.options.token_url_config.use_basic_auth_scheme',
  },
  { rule: 'compliance values are strings', edits: [['compliance.itar_compliant', true]], path: 'compliance.itar_compliant' },
  {
    rule: 'mcp_servers: at most 20',
    edits: [['mcp_servers', Object.fromEntries(many(21, (i) => [`s${i}`, { url: 'https://mcp.example.com' }]))]],
    path: 'mcp_servers',
  },
  { rule: 'mcp server url is required', edits: [['mcp_servers.status.url', undefined]], path: 'mcp_servers.status.url' },
  { rule: 'mcp server url is at most 500', edits: [['mcp_servers.status.url', `https://mcp.example.com/${chars(477)}`]], path: 'mcp_servers.status.url' },
  {
    rule: 'mcp server auth_provider_key is at most 255',
    edits: [
      [`external_auth_providers.oauth2.${chars(256)}`, ACME_PROVIDER],
      ['mcp_servers.status.auth_provider_key', chars(256)],
    ],
    path: 'mcp_servers.status.auth_provider_key',
  },
  { rule: 'mcp server auth_type is one of the four', edits: [['mcp_servers.status.auth_type', 'oauth']], path: 'mcp_servers.status.auth_type' },
];

describe('one broken manifest per rule of the spec', () => {
  it.each(BROKEN.map((c) => [c.rule, c] as const))('%s', (_rule, broken) => {
    const base = broken.base ?? FULL_V2;
    const manifest = typeof base === 'object' ? edited(base, broken.edits) : base;
    expect(checkAppManifest(manifest).map((v) => `${v.severity} ${v.path}`)).toEqual([`${broken.warning ? 'warning' : 'error'} ${broken.path}`]);
  });

  it('lists every violation at once, each with its own path', () => {
    const manifest = edited(FULL_V2, [
      ['display_information.name', chars(36)],
      ['features.slash_commands[0].command', 'status'],
      ['oauth_config.scopes.bot_optional', ['channels:join']],
      ['settings.org_deploy_enabled', undefined],
      ['types.incident_ref.type', undefined],
    ]);
    expect(paths(manifest).sort()).toEqual(
      [
        'display_information.name',
        'features.slash_commands[0].command',
        'oauth_config.scopes.bot_optional[0]',
        'settings.org_deploy_enabled',
        'types.incident_ref.type',
      ].sort(),
    );
  });

  it('a v1-shaped parameter map in a v2 manifest names both what is missing and what is unknown', () => {
    const manifest = edited(FULL_V2, [['functions.notify_status.input_parameters', { channel_id: { type: 'string', is_required: true } }]]);
    expect(paths(manifest).sort()).toEqual(['functions.notify_status.input_parameters.channel_id', 'functions.notify_status.input_parameters.properties']);
  });

  it('says what was expected and what came', () => {
    const messages = (manifest: JsonObject) => checkAppManifest(manifest).map((v) => `${v.path}: ${v.message}`);
    expect(messages(edited(FULL_V2, [['display_information.name', chars(36)]]))).toEqual(['display_information.name: at most 35 characters, got 36']);
    expect(messages(edited(FULL_V2, [['display_information', undefined]]))).toEqual(['display_information: required']);
    expect(messages(edited(FULL_V2, [['features.shortcuts[0].type', 'channel']]))).toEqual([
      'features.shortcuts[0].type: expected "message" or "global", got "channel"',
    ]);
    expect(messages(edited(FULL_V2, [['oauth_config.scopes.bot_optional', ['channels:join']]]))[0]).toContain('channels:join');
    expect(messages(edited(FULL_V2, [['oauth_config.redirect_urls', many(1001, () => 'https://x.example')]]))).toEqual([
      'oauth_config.redirect_urls: at most 1000 items, got 1001',
    ]);
  });

  it('refuses nesting deeper than any manifest, without exhausting the stack', () => {
    let deep: Json = {};
    for (let i = 0; i < 100_000; i++) deep = { type: 'object', properties: { p: deep } };
    const manifest = structuredClone(FULL_V2);
    (manifest.metadata_events as JsonObject).incident_changed = deep;
    expect(checkAppManifest(manifest)).toEqual([{ path: '(root)', message: expect.stringContaining('nested more than'), severity: 'error' }]);
  });
});

describe("statuswatch's own manifest", () => {
  const PUBLIC_URL = 'https://status.example.com';

  it('passes the check, at the root of a host or under a path, with or without a trailing slash', () => {
    for (const publicUrl of [PUBLIC_URL, `${PUBLIC_URL}/`, 'https://example.com/tools/statuswatch']) {
      expect(checkAppManifest(appManifest({ publicUrl })), publicUrl).toEqual([]);
    }
  });

  it('is manifest v2 with token rotation, the /status command and interactivity under PUBLIC_URL', () => {
    const manifest = appManifest({ publicUrl: 'https://example.com/tools/statuswatch/' });
    expect(manifest._metadata?.major_version).toBe(2);
    expect(manifest.settings?.token_rotation_enabled).toBe(true);
    expect(manifest.display_information.name).toBeTruthy();
    expect(manifest.features?.bot_user?.display_name).toBeTruthy();
    expect(manifest.features?.slash_commands?.map((c) => c.command)).toEqual(['/status']);
    expect(manifest.settings?.interactivity?.is_enabled).toBe(true);
    const urls = [manifest.features?.slash_commands?.[0]?.url, manifest.settings?.interactivity?.request_url, ...(manifest.oauth_config?.redirect_urls ?? [])];
    expect(urls).toHaveLength(3);
    for (const url of urls) expect(url).toMatch(/^https:\/\/example\.com\/tools\/statuswatch\/[a-z]/);
  });

  it('tells a user what /status takes: a service of the vendor or a watched page, by name', () => {
    // A user types `/status`, `/status Files` or `/status GitHub` (a page statuswatch watches).
    const [command] = appManifest({ publicUrl: PUBLIC_URL }).features?.slash_commands ?? [];
    expect(command?.usage_hint).toMatch(/service/i);
    expect(command?.usage_hint).toMatch(/page/i);
    expect(command?.description).toMatch(/page/i);
  });

  it('asks for the scopes the app uses and nothing more', () => {
    const scopes = appManifest({ publicUrl: PUBLIC_URL }).oauth_config?.scopes;
    // Post and edit (chat:write), list channels for the admin to pick, public and private
    // (channels:read, groups:read), read its own messages back after a crash (channels:history,
    // groups:history), the /status command (commands). No user scopes.
    expect([...(scopes?.bot ?? [])].sort()).toEqual(['channels:history', 'channels:read', 'chat:write', 'commands', 'groups:history', 'groups:read']);
    expect(scopes?.user).toBeUndefined();
    expect(new Set(APP_BOT_SCOPES).size).toBe(APP_BOT_SCOPES.length);
  });

  it('with an http:// PUBLIC_URL breaks the spec where it asks for https, which the command refuses', () => {
    expect(paths(appManifest({ publicUrl: 'http://status.example.com' })).sort()).toEqual([
      'features.slash_commands[0].url',
      'settings.interactivity.request_url',
    ]);
  });
});

describe('shapes the spec allows two ways', () => {
  it('suggested_triggers as a list or a map, each entry checked at its own path', () => {
    const trigger = { name: 'Post', description: 'Post now', type: 'shortcut', inputs: {} };
    expect(paths(edited(FULL_V2, [['workflows.post_status.suggested_triggers', [trigger]]]))).toEqual([]);
    expect(
      paths(edited(FULL_V2, [['workflows.post_status.suggested_triggers', [trigger, { name: 'Post', description: 'Post now', type: 'shortcut' }]]])),
    ).toEqual(['workflows.post_status.suggested_triggers[1].inputs']);
    expect(paths(edited(FULL_V2, [['workflows.post_status.suggested_triggers', 'shortcut']]))).toEqual(['workflows.post_status.suggested_triggers']);
  });

  it('metadata events as an object definition or a reference to a type of the app', () => {
    expect(paths(edited(FULL_V2, [['metadata_events.incident_changed', { type: 'acme#/types/incident', examples: ['1580'] }]]))).toEqual([]);
    expect(paths(edited(FULL_V2, [['metadata_events.incident_changed', { type: 'acme#/types/incident', title: 'Incident' }]]))).toEqual([
      'metadata_events.incident_changed.title',
    ]);
  });

  it("external auth providers keyed by type and the provider's key, not one flat provider", () => {
    expect(checkAppManifest(edited(FULL_V2, [['external_auth_providers', ACME_PROVIDER]])).filter((v) => v.severity === 'error')).toEqual([
      { path: 'external_auth_providers', message: expect.stringContaining('external_auth_providers.oauth2.<provider_key>'), severity: 'error' },
    ]);
    const two = { oauth2: { acme: ACME_PROVIDER, github: { provider_type: 'SLACK_PROVIDED', options: { client_id: 'abc', scope: [] } } } };
    expect(checkAppManifest(edited(FULL_V2, [['external_auth_providers', two]]))).toEqual([]);
  });
});

/** Messages of one severity, as `path: message`. */
const found = (manifest: unknown, severity: 'error' | 'warning') =>
  checkAppManifest(manifest)
    .filter((v) => v.severity === severity)
    .map((v) => `${v.path}: ${v.message}`);

describe('what the vendor takes, as apps made from its own samples show', () => {
  it('a bot display name outside a-z 0-9 - _ . is a warning that says the rule is not enforced; its length is still an error', () => {
    const spaced = edited(FULL_V2, [['features.bot_user.display_name', 'Bolt Template App']]);
    expect(found(spaced, 'error')).toEqual([]);
    expect(found(spaced, 'warning')).toEqual([
      `features.bot_user.display_name: expected only the characters a-z, 0-9, -, _ and ., got "Bolt Template App": documented, not enforced by the vendor's own apps`,
    ]);
    expect(found(edited(FULL_V2, [['features.bot_user.display_name', 'A'.repeat(81)]]), 'error')).toEqual([
      'features.bot_user.display_name: at most 80 characters, got 81',
    ]);
  });

  it('an unknown field is a warning, and $schema (an editor hint) is not even that', () => {
    const manifest = edited(FULL_V2, [
      ['settings.hermes_app_type', 'remote'],
      ['$schema', 'https://schemas.example.com/manifest.schema.json'],
    ]);
    expect(checkAppManifest(manifest)).toEqual([{ path: 'settings.hermes_app_type', message: expect.stringContaining('unknown field'), severity: 'warning' }]);
    expect(paths(edited(FULL_V2, [['$schema', 5]]))).toEqual(['["$schema"]']);
  });

  it('identity_config.account_identifier is a JSONPath into the identity answer', () => {
    const at = 'external_auth_providers.oauth2.acme.options.identity_config.account_identifier';
    for (const jsonPath of ['$.login', '$.user.email']) expect(checkAppManifest(edited(FULL_V2, [[at, jsonPath]])), jsonPath).toEqual([]);
    expect(found(edited(FULL_V2, [[at, 'https://auth.example.com/id']]), 'error')).toEqual([
      `${at}: expected a JSONPath into the identity answer, like $.login, got "https://auth.example.com/id"`,
    ]);
  });

  it('an empty outgoing_domains asks for nothing, with a remote runtime or none', () => {
    for (const runtime of ['remote', undefined]) {
      const manifest = edited(FULL_V2, [
        ['settings.function_runtime', runtime ?? 'slack'],
        ['outgoing_domains', []],
      ]);
      if (runtime === undefined) delete (manifest.settings as JsonObject).function_runtime;
      expect(found(manifest, 'error'), String(runtime)).toEqual([]);
    }
    expect(found(edited(FULL_V2, [['settings.function_runtime', 'remote']]), 'error')).toEqual([
      'outgoing_domains: outgoing domains apply to settings.function_runtime "slack" only',
    ]);
  });

  it("a reference must not start with the vendor's own word, slack; the spec's placeholder word service is any namespace", () => {
    const at = 'metadata_events.incident_changed.properties.owner.type';
    expect(checkAppManifest(edited(FULL_V2, [[at, 'service#/types/person']]))).toEqual([]);
    expect(found(edited(FULL_V2, [[at, 'slack#/types/user_id']]), 'error')).toEqual([
      `${at}: a reference of the app's own must not start with the vendor's word "slack", got "slack#/types/user_id"`,
    ]);
  });

  it('with functions, org_deploy_enabled is required but may be false, and function_runtime left out is a warning', () => {
    expect(checkAppManifest(edited(FULL_V2, [['settings.org_deploy_enabled', false]]))).toEqual([]);
    const noRuntime = edited(FULL_V2, [
      ['settings.function_runtime', undefined],
      ['outgoing_domains', undefined],
    ]);
    expect(found(noRuntime, 'error')).toEqual([]);
    expect(found(noRuntime, 'warning')).toEqual([expect.stringContaining(`settings.function_runtime: required when the manifest declares functions`)]);
  });

  it('a major_version past 2 is a warning: its shapes are not known, so its parameters are not checked', () => {
    const v3 = edited(FULL_V2, [
      ['_metadata.major_version', 3],
      ['functions.notify_status.input_parameters', { anything: 'goes' }],
    ]);
    expect(found(v3, 'error')).toEqual([]);
    expect(found(v3, 'warning')).toEqual([expect.stringMatching(/^_metadata\.major_version: the spec describes manifest versions 1 and 2/)]);
  });

  it('v2-shaped parameters in a manifest v1 (as the vendor samples write them) are checked as v2, with a warning', () => {
    const v2Params = (FULL_V2.functions as JsonObject).notify_status as JsonObject;
    const mixed = edited(FULL_V1, [['functions.notify_status.input_parameters', v2Params.input_parameters!]]);
    expect(found(mixed, 'error')).toEqual([]);
    expect(found(mixed, 'warning')).toEqual([expect.stringMatching(/^functions\.notify_status\.input_parameters: the manifest v2 shape/)]);
    const broken = edited(mixed, [['functions.notify_status.input_parameters.required', ['nothing']]]);
    expect(found(broken, 'error')).toEqual(['functions.notify_status.input_parameters.required[0]: "nothing" is not one of the properties']);
  });

  it("an MCP server's auth_provider_key that names no declared provider is a warning", () => {
    expect(checkAppManifest(edited(FULL_V2, [['mcp_servers.status.auth_provider_key', 'acmee']]))).toEqual([
      { path: 'mcp_servers.status.auth_provider_key', message: 'names no provider under external_auth_providers.oauth2, got "acmee"', severity: 'warning' },
    ]);
  });

  it('a template placeholder in an address is a warning that names it, not an error, whatever the address looks like', () => {
    const cases: [string, string, string][] = [
      ['settings.event_subscriptions.request_url', 'https://{{URL}}/events', '"{{URL}}"'],
      ['settings.interactivity.request_url', '<BASE_URL>/slack/events', '"<BASE_URL>"'],
      ['features.slash_commands[0].url', 'https://$HOST/commands', '"$HOST"'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style placeholder is the value under test
      ['oauth_config.redirect_urls[0]', '${PUBLIC_URL}/oauth', '"${PUBLIC_URL}"'],
      ['mcp_servers.status.url', 'https://{{ MCP_HOST }}/mcp', '"{{ MCP_HOST }}"'],
      ['app_directory.installation_landing_page', '<LANDING_PAGE>', '"<LANDING_PAGE>"'],
    ];
    for (const [path, value, placeholder] of cases) {
      const manifest = edited(FULL_V2, [[path, value]]);
      expect(found(manifest, 'error'), path).toEqual([]);
      expect(found(manifest, 'warning'), path).toEqual([
        `${path}: holds the template placeholder ${placeholder}: put the real address in before creating the app`,
      ]);
    }
    expect(found(edited(FULL_V2, [['settings.event_subscriptions.request_url', 'http://status.example.com/events']]), 'error')).toHaveLength(1);
  });
});

describe('paths and messages from a hostile manifest', () => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal
  const RAW_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it('quote keys that are not plain names, so a path is unambiguous and prints inert', () => {
    const manifest = edited(FULL_V2, [['oauth_config.scopes.bot_optional', ['commands', 'x\u009b31m\u202e']]]);
    (manifest.functions as JsonObject)['bad\u001b[2J\nfake: line'] = NOTIFY_STATUS;
    (manifest.metadata_events as JsonObject)['a.b'] = { title: 'dotted' };
    const violations = checkAppManifest(manifest);
    expect(violations.map((v) => v.path).sort()).toEqual([
      'functions["bad\\u001b[2J\\nfake: line"]',
      'metadata_events["a.b"].type',
      'oauth_config.scopes.bot_optional[1]',
    ]);
    for (const violation of violations) {
      expect(violation.path).not.toMatch(RAW_CONTROLS);
      expect(violation.message).not.toMatch(RAW_CONTROLS);
    }
  });
});
