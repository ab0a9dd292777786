/** The manifest of statuswatch's own workspace app, made from the settings. */
import type { AppManifest } from './manifest-schema.ts';

/** Where the workspace reaches the app under PUBLIC_URL; the app's routes answer on these paths. */
export const APP_PATHS = {
  slashCommand: '/app/commands',
  interactivity: '/app/interactivity',
  oauthRedirect: '/app/oauth/callback',
} as const;

/**
 * The bot scopes the app asks for, and nothing more: each is a thing the app does.
 * No user scopes: the app never acts as a person.
 */
export const APP_BOT_SCOPES = [
  // Posts each incident's root message and its thread replies, and edits the root as it changes,
  // in the channels it is invited to.
  'chat:write',
  // Lists public channels so the admin can pick the one updates go to.
  'channels:read',
  // Lists private channels it was invited to: status channels are often private.
  'groups:read',
  // Reads its own messages back to find an incident's root after a crash lost the stored id.
  'channels:history',
  // The same, in a private channel.
  'groups:history',
  // The /status slash command.
  'commands',
] as const;

export type AppManifestSettings = {
  /** PUBLIC_URL without a trailing slash: every URL of the manifest is under it. */
  publicUrl: string;
  /** MCP_AUTH: the MCP server at /mcp is declared with how clients authenticate to it. */
  mcpAuth?: 'none' | 'token' | 'ema';
};

/** The key of statuswatch's MCP server under mcp_servers. */
export const MCP_SERVER_KEY = 'statuswatch';

/**
 * How the workspace reaches /mcp. none: no authentication. token: a bearer token the admin made
 * and enters by hand. ema: client credentials registered by hand, then user tokens from ID-JAGs
 * (oauth_config.is_enterprise_managed_auth_supported says so).
 */
const MCP_AUTH_TYPES = { none: 'no_auth', token: 'manual_auth', ema: 'manual_auth' } as const;

export function appManifest(settings: AppManifestSettings): AppManifest {
  const base = settings.publicUrl.replace(/\/+$/, '');
  return {
    _metadata: { major_version: 2, minor_version: 1 },
    display_information: {
      name: 'statuswatch',
      description: "Posts the vendor's status incidents to a channel as they happen, and answers /status.",
    },
    features: {
      bot_user: { display_name: 'statuswatch' },
      slash_commands: [
        {
          command: '/status',
          description: "Current status: the vendor's open incidents and the services they affect, or a watched status page's",
          // What the command takes: slash-answer.ts answers a service's name, then a page's.
          usage_hint: '[service or status page name]',
          url: `${base}${APP_PATHS.slashCommand}`,
        },
      ],
    },
    oauth_config: {
      redirect_urls: [`${base}${APP_PATHS.oauthRedirect}`],
      scopes: { bot: [...APP_BOT_SCOPES] },
      ...(settings.mcpAuth === 'ema' ? { is_enterprise_managed_auth_supported: true } : {}),
    },
    settings: {
      interactivity: { is_enabled: true, request_url: `${base}${APP_PATHS.interactivity}` },
      // Access tokens then expire after 12 hours and are refreshed; a leaked one stops working.
      token_rotation_enabled: true,
      ...(settings.mcpAuth ? { is_mcp_enabled: true } : {}),
    },
    ...(settings.mcpAuth ? { mcp_servers: { [MCP_SERVER_KEY]: { url: `${base}/mcp`, auth_type: MCP_AUTH_TYPES[settings.mcpAuth] } } } : {}),
  };
}
