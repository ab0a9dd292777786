/**
 * The workspace app manifest as the vendor's spec states it (developer-interface.md, "App
 * manifest", Limits and Versioning): one zod schema, the source of the manifest we generate and
 * of `statuswatch manifest --check`, which lists every violation with its path.
 *
 * How the spec's table is read:
 * - Errors are rules the vendor enforces; warnings are worth a look but do not stop an app being
 *   made (manifest-fields.ts, ManifestViolation). Real manifests, the vendor's own sample apps
 *   among them, decide which is which: a rule of the spec those samples break is a warning.
 * - A group or shape whose fields the spec lists reports an unknown field as a warning, so a
 *   typo (`slash_command`) shows instead of being silently ignored, while a field the vendor
 *   added after the spec (`settings.hermes_app_type`) does not fail the check. Definitions
 *   (function and workflow parameters, custom types) stay open: they carry type-specific fields
 *   the spec does not list (`items` of an array, `default`).
 * - Where the spec writes `service` for the vendor's name, the check means the vendor's name.
 * - In a `{a, b}` shape every field is required unless the spec marks which ones are; a field
 *   is otherwise optional unless marked "required".
 * - Lengths count characters (code points). Rules about changes over time (background_color
 *   cannot be removed, token rotation cannot be turned off, the in-product editor's 174-character
 *   minimum of long_description) cannot be seen in one manifest and are not checked.
 */
import { VENDOR_WORD } from '../vendor-word.ts';
import { z } from 'zod';
import {
  addIssuesFrom,
  addWarning,
  anyAddress,
  httpsUrl,
  ipAddressRange,
  isPlainObject,
  keyedMap,
  list,
  listOrMap,
  manifestMessages,
  matching,
  NOT_ENFORCED,
  shown,
  text,
  toViolations,
  urlMatching,
  type ManifestViolation,
} from './manifest-fields.ts';

export type { ManifestViolation } from './manifest-fields.ts';

const flag = z.boolean();
const anyObject = z.record(z.string(), z.unknown());
const httpOrHttpsUrl = urlMatching(/^https?:\/\//, 'a URL that starts with http:// or https://');

const appDirectory = z.strictObject({
  app_directory_categories: list(z.string()).optional(),
  use_direct_install: flag.optional(),
  direct_install_url: httpOrHttpsUrl.optional(),
  installation_landing_page: httpOrHttpsUrl,
  privacy_policy_url: anyAddress(),
  support_url: anyAddress(),
  support_email: z.string(),
  supported_languages: list(z.string()),
  pricing: z.string(),
});

const displayInformation = z.strictObject({
  name: text({ minChars: 1, maxChars: 35 }),
  description: text({ maxChars: 140 }).optional(),
  long_description: text({ maxChars: 4000 }).optional(),
  background_color: matching(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'a hex colour: # and 3 or 6 hex digits').optional(),
});

const viewAction = z.strictObject({ name: z.string(), description: z.string() });
const suggestedPrompt = z.strictObject({ title: z.string(), message: z.string() });

const features = z.strictObject({
  app_home: z
    .strictObject({ home_tab_enabled: flag.optional(), messages_tab_enabled: flag.optional(), messages_tab_read_only_enabled: flag.optional() })
    .optional(),
  agent_view: z
    .strictObject({ actions: list(viewAction).optional(), agent_description: text({ maxChars: 300 }), suggested_prompts: list(suggestedPrompt).optional() })
    .optional(),
  assistant_view: z
    .strictObject({ actions: list(viewAction).optional(), assistant_description: z.string(), suggested_prompts: list(suggestedPrompt).optional() })
    .optional(),
  bot_user: z
    .strictObject({
      // The spec's character rule; the vendor's own samples are named "Bolt Template App".
      display_name: matching(/^[a-z0-9._-]+$/, 'only the characters a-z, 0-9, -, _ and .', { maxChars: 80 }, { unenforced: true }),
      always_online: flag.optional(),
    })
    .optional(),
  rich_previews: z.strictObject({ is_active: flag.optional(), entity_types: list(z.string()).optional() }).optional(),
  search: z
    .strictObject({
      search_function_callback_id: z.string(),
      search_filters_function_callback_id: z.string().optional(),
      slackbot_metadata: z.strictObject({ description: z.string(), examples: list(z.string(), 5), example_query: z.string() }).optional(),
    })
    .optional(),
  shortcuts: list(
    z.strictObject({
      name: z.string(),
      callback_id: text({ maxChars: 255 }),
      description: text({ maxChars: 150 }),
      type: z.enum(['message', 'global']),
    }),
    10,
  ).optional(),
  slash_commands: list(
    z.strictObject({
      command: matching(/^\/\S+$/, 'a leading / and a name without spaces, like /status', { maxChars: 32 }),
      description: text({ maxChars: 2000 }),
      should_escape: flag.optional(),
      url: httpsUrl().optional(),
      usage_hint: text({ maxChars: 1000 }).optional(),
    }),
    50,
  ).optional(),
  unfurl_domains: list(z.string(), 5).optional(),
  // Legacy and deprecated, still checked while manifests carry it.
  workflow_steps: list(z.strictObject({ name: text({ maxChars: 50 }), callback_id: text({ maxChars: 50 }) }), 10).optional(),
});

const scopes = z
  .strictObject({
    bot: list(z.string(), 255).optional(),
    user: list(z.string(), 255).optional(),
    bot_optional: list(z.string()).optional(),
    user_optional: list(z.string()).optional(),
  })
  .superRefine(
    (value, ctx) => {
      if (!isPlainObject(value)) return;
      for (const [optional, full] of [
        ['bot_optional', 'bot'],
        ['user_optional', 'user'],
      ] as const) {
        const listed = new Set(Array.isArray(value[full]) ? value[full] : []);
        const optionals: unknown[] = Array.isArray(value[optional]) ? value[optional] : [];
        optionals.forEach((scope, index) => {
          if (typeof scope === 'string' && !listed.has(scope)) {
            ctx.addIssue({
              code: 'custom',
              path: [optional, index],
              message: `optional scope ${shown(scope)} must also be listed in oauth_config.scopes.${full}`,
            });
          }
        });
      }
    },
    { when: () => true },
  );

const oauthConfig = z.strictObject({
  pkce_enabled: flag.optional(),
  redirect_urls: list(anyAddress(), 1000).optional(),
  scopes: scopes.optional(),
  token_management_enabled: flag.optional(),
  is_enterprise_managed_auth_supported: flag.optional(),
});

const settings = z.strictObject({
  allowed_ip_address_ranges: list(ipAddressRange, 10).optional(),
  event_subscriptions: z
    .strictObject({
      request_url: httpsUrl().optional(),
      bot_events: list(z.string(), 100).optional(),
      user_events: list(z.string(), 100).optional(),
      // app_id may be "*": any app's events of that type.
      metadata_subscriptions: list(z.strictObject({ app_id: z.string(), event_type: z.string() })).optional(),
    })
    .optional(),
  incoming_webhooks: z.strictObject({ incoming_webhooks_enabled: flag.optional() }).optional(),
  interactivity: z.strictObject({ is_enabled: flag, request_url: httpsUrl().optional(), message_menu_options_url: httpsUrl().optional() }).optional(),
  org_deploy_enabled: flag.optional(),
  socket_mode_enabled: flag.optional(),
  token_rotation_enabled: flag.optional(),
  is_hosted: flag.optional(),
  is_mcp_enabled: flag.optional(),
  siws_links: z.strictObject({ initiate_uri: urlMatching(/^https:\/\//, 'a URL that starts with https://').optional() }).optional(),
  function_runtime: z.enum(['remote', VENDOR_WORD]).optional(),
});

// Function parameters: the manifest's major version decides their shape (Versioning 3), so
// they are checked in the cross-field rules below, with one of these two.
const parameterCommon = {
  // A parameter without a type cannot be filled in by anyone.
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  hint: z.string().optional(),
  name: z.string().optional(),
};
/** v1: parameter names map straight to definitions, each with its own is_required. */
const parametersV1 = keyedMap(z.looseObject({ ...parameterCommon, is_required: flag.optional() }));
/** v2: a properties map (definitions without is_required) and a required list of its names. */
const parametersV2 = z
  .strictObject({
    properties: keyedMap(
      z.looseObject(parameterCommon).superRefine((definition, ctx) => {
        if ('is_required' in definition) {
          ctx.addIssue({ code: 'custom', path: ['is_required'], message: 'not in manifest v2: list the parameter in "required" instead' });
        }
      }),
    ),
    required: list(z.string()).optional(),
  })
  .superRefine((value, ctx) => {
    (value.required ?? []).forEach((name, index) => {
      if (!Object.hasOwn(value.properties, name))
        ctx.addIssue({ code: 'custom', path: ['required', index], message: `${shown(name)} is not one of the properties` });
    });
  });

const appFunction = z.strictObject({
  title: text({ maxChars: 255 }),
  description: z.string(),
  input_parameters: anyObject,
  output_parameters: anyObject,
});

const workflowParameters = z.strictObject({
  properties: keyedMap(z.looseObject({ type: z.string() })),
  required: list(z.string()).optional(),
});
const workflowStep = z.strictObject({
  id: z.string(),
  function_id: z.string(),
  inputs: anyObject,
  // Manifest v2 only; the cross-field rules refuse it in v1.
  type: z.enum(['function', 'switch', 'conditional']).optional(),
});
const suggestedTrigger = z.strictObject({ name: z.string(), description: z.string(), type: z.string(), inputs: anyObject });
const workflow = z.strictObject({
  title: z.string(),
  description: z.string(),
  input_parameters: workflowParameters.optional(),
  output_parameters: workflowParameters.optional(),
  steps: list(workflowStep),
  suggested_triggers: listOrMap(suggestedTrigger).optional(),
});

const datastore = z.strictObject({
  primary_key: z.string(),
  attributes: keyedMap(
    z.strictObject({
      type: z.string(),
      items: z.strictObject({ type: z.string().optional(), properties: anyObject.optional() }).optional(),
      properties: anyObject.optional(),
    }),
  ).optional(),
  time_to_live_attribute: z.string().optional(),
});

const domain = matching(
  /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/,
  'a domain: letters, digits, . and -, not starting with . or -, ending with a letter or digit',
);

const customType = z.looseObject({
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  is_required: flag.optional(),
  is_hidden: flag.optional(),
  hint: z.string().optional(),
});

/**
 * A metadata event's definition: a reference (`type` is `<namespace>#/<segment>/<segment>`, a
 * namespace of the app's own: the vendor's word is reserved), or an object definition whose
 * properties are definitions again.
 */
const REFERENCE_PATTERN = /^[^\s#/]+#\/[^\s/]+\/[^\s/]+$/;
const metadataEventReference = z.strictObject({
  type: z.string().superRefine((type, ctx) => {
    if (!REFERENCE_PATTERN.test(type)) ctx.addIssue({ code: 'custom', message: `expected a reference <namespace>#/<segment>/<segment>, got ${shown(type)}` });
    else if (type.toLowerCase().startsWith(VENDOR_WORD))
      ctx.addIssue({ code: 'custom', message: `a reference of the app's own must not start with the vendor's word "${VENDOR_WORD}", got ${shown(type)}` });
  }),
  examples: list(z.unknown(), 10).optional(),
});
const metadataEventDefinition: z.ZodType<unknown> = z.unknown().superRefine((value, ctx) => {
  const isReference = isPlainObject(value) && typeof value.type === 'string' && value.type.includes('#');
  addIssuesFrom(isReference ? metadataEventReference : metadataEventObject, value, ctx, []);
});
const metadataEventObject = z.strictObject({
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
  examples: list(z.unknown(), 10).optional(),
  required: list(z.string()).optional(),
  additionalProperties: flag.optional(),
  nullable: flag.optional(),
  properties: keyedMap(metadataEventDefinition, { maxEntries: 50 }).optional(),
  is_required: flag.optional(),
  is_hidden: flag.optional(),
  hint: z.string().optional(),
  choices: list(
    z.strictObject({
      value: z.union([z.string(), z.number(), z.boolean()]),
      title: z.string(),
      description: z.string().optional(),
      is_hidden: flag.optional(),
      hint: z.string().optional(),
    }),
  ).optional(),
  render_condition: z.strictObject({ operator: z.string(), conditions: list(z.unknown()), is_required: flag.optional() }).optional(),
});

const identityConfig = z.strictObject({
  url: httpsUrl({ minChars: 5, maxChars: 255 }),
  // The spec's row gives account_identifier the https pattern of the url before it: garbled.
  // It is a JSONPath into the identity answer (`$.login`, `$.user.email`), as in the vendor's
  // own examples and manifest schema.
  account_identifier: matching(/^\$\..+/, 'a JSONPath into the identity answer, like $.login', { minChars: 1, maxChars: 255 }),
  headers: anyObject.optional(),
  body: anyObject.optional(),
  http_method_type: z.enum(['GET', 'POST']).optional(),
});
const CUSTOM_PROVIDER_FIELDS = ['provider_name', 'authorization_url', 'token_url', 'identity_config'] as const;
const oauth2Provider = z
  .strictObject({
    provider_type: z.enum(['CUSTOM', 'SLACK_PROVIDED']),
    options: z.strictObject({
      client_id: text({ maxChars: 1024 }),
      scope: list(z.string()),
      provider_name: text({ maxChars: 255 }).optional(),
      authorization_url: httpsUrl({ maxChars: 255 }).optional(),
      token_url: httpsUrl({ maxChars: 255 }).optional(),
      identity_config: identityConfig.optional(),
      authorization_url_extras: anyObject.optional(),
      use_pkce: flag.optional(),
      token_url_config: z.strictObject({ use_basic_auth_scheme: flag.optional() }).optional(),
    }),
  })
  .superRefine(
    (value, ctx) => {
      if (!isPlainObject(value) || value.provider_type !== 'CUSTOM' || !isPlainObject(value.options)) return;
      for (const field of CUSTOM_PROVIDER_FIELDS) {
        if (value.options[field] === undefined) ctx.addIssue({ code: 'custom', path: ['options', field], message: 'required for provider_type CUSTOM' });
      }
    },
    { when: () => true },
  );

/**
 * Providers keyed by type, then by the provider's key (what mcp_servers.<key>.auth_provider_key
 * names): `external_auth_providers.oauth2.<provider_key>.{provider_type, options}`, as real
 * manifests and the vendor's schema have it. The spec's row lists a provider's own fields only.
 */
const externalAuthProviders = z.unknown().superRefine((value, ctx) => {
  if (value === undefined) return;
  if (isPlainObject(value) && ('provider_type' in value || 'options' in value)) {
    return ctx.addIssue({
      code: 'custom',
      message: 'a provider is keyed by type and name: external_auth_providers.oauth2.<provider_key>.{provider_type, options}',
    });
  }
  addIssuesFrom(z.strictObject({ oauth2: keyedMap(oauth2Provider).optional() }), value, ctx, []);
});

const mcpServer = z.strictObject({
  url: anyAddress({ maxChars: 500 }),
  auth_provider_key: text({ maxChars: 255 }).optional(),
  auth_type: z.enum(['dynamic_client_registration', 'no_auth', 'manual_auth', 'slack_identity_auth']).optional(),
  headers: anyObject.optional(),
});

/** The manifest schema versions the spec describes (samples show major 2, minor 1). */
export const MANIFEST_MAJOR_VERSIONS = [1, 2] as const;

export const appManifestSchema = z
  .strictObject({
    // An editor's hint (the JSON schema to complete against), not part of the app.
    $schema: z.string().optional(),
    // Any integer: a version the spec does not describe is a warning (cross-field rules).
    _metadata: z.strictObject({ major_version: z.int().min(1).optional(), minor_version: z.int().min(0).optional() }).optional(),
    app_directory: appDirectory.optional(),
    display_information: displayInformation,
    features: features.optional(),
    oauth_config: oauthConfig.optional(),
    settings: settings.optional(),
    functions: keyedMap(appFunction, { key: matching(/^[a-z][a-z0-9_]*$/, 'a snake_case callback id (a-z, 0-9 and _)', { maxChars: 100 }) }).optional(),
    workflows: keyedMap(workflow).optional(),
    datastores: keyedMap(datastore).optional(),
    outgoing_domains: list(domain, 10).optional(),
    types: keyedMap(customType, { maxEntries: 50 }).optional(),
    metadata_events: keyedMap(metadataEventDefinition).optional(),
    external_auth_providers: externalAuthProviders.optional(),
    compliance: z
      .strictObject({ fedramp_authorization: z.string().optional(), dod_srg_ilx: z.string().optional(), itar_compliant: z.string().optional() })
      .optional(),
    mcp_servers: keyedMap(mcpServer, { maxEntries: 20 }).optional(),
  })
  // Rules that join two parts of the manifest; run even when a part is broken, so that every
  // violation is listed at once. The value may be malformed here: each rule reads defensively.
  .superRefine((manifest, ctx) => crossFieldRules(manifest, ctx), { when: () => true });

export type AppManifest = z.infer<typeof appManifestSchema>;

function crossFieldRules(manifest: unknown, ctx: z.RefinementCtx): void {
  if (!isPlainObject(manifest)) return;
  const settingsGroup = isPlainObject(manifest.settings) ? manifest.settings : {};
  const functions = isPlainObject(manifest.functions) ? manifest.functions : {};
  const version = manifestMajorVersion(manifest);

  if (Object.keys(functions).length > 0) {
    // The spec says required; the vendor's own samples with functions leave it out.
    if (settingsGroup.function_runtime === undefined) {
      addWarning(ctx, `required when the manifest declares functions: "remote" or "${VENDOR_WORD}" (${NOT_ENFORCED})`, ['settings', 'function_runtime']);
    }
    // Required, not required to be true: the vendor's own samples declare functions with false.
    if (settingsGroup.org_deploy_enabled === undefined) {
      ctx.addIssue({ code: 'custom', path: ['settings', 'org_deploy_enabled'], message: 'required when the manifest declares functions: true or false' });
    }
  }
  // An empty list asks for no domain, whatever the runtime.
  const domains = manifest.outgoing_domains;
  if (Array.isArray(domains) && domains.length > 0 && settingsGroup.function_runtime !== VENDOR_WORD) {
    ctx.addIssue({ code: 'custom', path: ['outgoing_domains'], message: `outgoing domains apply to settings.function_runtime "${VENDOR_WORD}" only` });
  }
  providerReferences(manifest, ctx);
  if (version === 'unknown') {
    addWarning(
      ctx,
      `the spec describes manifest versions ${MANIFEST_MAJOR_VERSIONS.join(' and ')}: this version's shapes are not known, so function parameters and workflow steps are not checked`,
      ['_metadata', 'major_version'],
    );
    return;
  }
  if (version === 'malformed') return; // reported where it is
  for (const [callbackId, fn] of Object.entries(functions)) {
    if (!isPlainObject(fn)) continue;
    for (const key of ['input_parameters', 'output_parameters'] as const) {
      const parameters = fn[key];
      if (!isPlainObject(parameters)) continue;
      const path = ['functions', callbackId, key];
      if (version === 1 && isV2Shaped(parameters)) {
        // The vendor's own v1 samples write parameters in the v2 shape: checked as v2, noted.
        addWarning(ctx, `the manifest v2 shape (properties and required) in a manifest v1: ${NOT_ENFORCED}`, path);
        addIssuesFrom(parametersV2, parameters, ctx, path);
      } else {
        addIssuesFrom(version === 1 ? parametersV1 : parametersV2, parameters, ctx, path);
      }
    }
  }
  if (version === 1 && isPlainObject(manifest.workflows)) {
    for (const [name, flow] of Object.entries(manifest.workflows)) {
      const steps = isPlainObject(flow) && Array.isArray(flow.steps) ? flow.steps : [];
      steps.forEach((step, index) => {
        if (isPlainObject(step) && step.type !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['workflows', name, 'steps', index, 'type'],
            message: 'step types are manifest v2: set _metadata.major_version to 2',
          });
        }
      });
    }
  }
}

/**
 * An MCP server's auth_provider_key names a provider under external_auth_providers.oauth2. The
 * spec gives the key no rule of its own, so one that names nothing is a warning: likely a typo.
 */
function providerReferences(manifest: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (!isPlainObject(manifest.mcp_servers)) return;
  const providers = isPlainObject(manifest.external_auth_providers) ? manifest.external_auth_providers.oauth2 : undefined;
  const declared = new Set(isPlainObject(providers) ? Object.keys(providers) : []);
  for (const [name, server] of Object.entries(manifest.mcp_servers)) {
    const key = isPlainObject(server) ? server.auth_provider_key : undefined;
    if (typeof key === 'string' && !declared.has(key)) {
      addWarning(ctx, `names no provider under external_auth_providers.oauth2, got ${shown(key)}`, ['mcp_servers', name, 'auth_provider_key']);
    }
  }
}

/** `{properties: {...}, required: [...]}` and nothing else: a v1 parameter map has no such pair. */
function isV2Shaped(parameters: Record<string, unknown>): boolean {
  const keys = Object.keys(parameters);
  return isPlainObject(parameters.properties) && keys.every((key) => key === 'properties' || key === 'required');
}

/**
 * 1 or 2; a manifest without `_metadata.major_version` is read as version 1, since nothing in
 * it selects version 2. `unknown` for a version the spec does not describe, `malformed` for a
 * value that is no version at all.
 */
function manifestMajorVersion(manifest: Record<string, unknown>): 1 | 2 | 'unknown' | 'malformed' {
  const given = isPlainObject(manifest._metadata) ? manifest._metadata.major_version : undefined;
  if (given === undefined) return 1;
  if (given === 1 || given === 2) return given;
  return Number.isInteger(given) && (given as number) >= 1 ? 'unknown' : 'malformed';
}

/** Deeper nesting than any manifest needs: the check refuses it before recursing into it. */
export const MANIFEST_MAX_DEPTH = 64;

/** Every rule the manifest breaks, each with its path, errors before warnings; empty when it is clean. */
export function checkAppManifest(manifest: unknown): ManifestViolation[] {
  if (depthOf(manifest, MANIFEST_MAX_DEPTH) > MANIFEST_MAX_DEPTH) {
    return [{ path: '(root)', message: `nested more than ${MANIFEST_MAX_DEPTH} levels deep`, severity: 'error' }];
  }
  const result = appManifestSchema.safeParse(manifest, { error: manifestMessages });
  if (result.success) return [];
  const found = toViolations(result.error.issues);
  return [...found.filter((v) => v.severity === 'error'), ...found.filter((v) => v.severity === 'warning')];
}

/** Nesting depth, counted without recursion and stopping once past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    if (typeof current === 'object' && current !== null) {
      for (const child of Object.values(current)) pending.push([child, depth + 1]);
    }
  }
  return deepest;
}
