/** All settings, from the environment (and --flags), parsed once by one zod schema with clear errors. */
import { z } from 'zod';
import { DEFAULT_READ_BUDGET_MS_PER_SECOND } from './core/cost-budget.ts';
import { DEFAULT_RETENTION, type RetentionSettings } from './core/retention.ts';
import { DEFAULT_MAX_INCIDENT_WRITES_PER_POLL } from './core/diff.ts';
import { parseMailbox, singleAddress } from './core/email-address.ts';
import { PAGERDUTY_EVENTS_URL_DEFAULT } from './core/pagerduty-message.ts';

const integer = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const boolean = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v), `${name} must be true or false`)
    .transform((v) => ['true', '1', 'yes'].includes(v));

/** One recipient (core/email-address.ts): a list or a display name here would mail strangers. */
const oneAddress = (name: string) =>
  z.string().transform((text, ctx) => {
    const check = singleAddress(text);
    if (check.ok) return check.address;
    ctx.addIssue({ code: 'custom', message: `${name} must be one email address such as ops@example.com: ${check.reason}` });
    return z.NEVER;
  });

/** One sender, with or without a display name; kept as written, since the mailers parse it again. */
const oneMailbox = (name: string) =>
  z
    .string()
    .trim()
    .superRefine((text, ctx) => {
      const check = parseMailbox(text);
      if (!check.ok) ctx.addIssue({ code: 'custom', message: `${name} must be one sender such as "statuswatch <status@example.com>": ${check.reason}` });
    });

const httpUrl = (name: string) => z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).transform((u) => u.replace(/\/+$/, ''));

export const configSchema = z
  .object({
    PORT: integer('PORT', 0, 65535).default(3000),
    HOST: z.string().trim().min(1).default('0.0.0.0'),
    DATABASE_PATH: z.string().trim().min(1).default('./data/statuswatch.db'),
    STATUS_URL: httpUrl('STATUS_URL').default('https://slack-status.com'),
    // Five fields, or six with seconds first; node-cron checks the values when the scheduler starts.
    POLL_SCHEDULE: z
      .string()
      .trim()
      .refine((s) => [5, 6].includes(s.split(/\s+/).length), 'POLL_SCHEDULE must be a cron expression such as "* * * * *"')
      .default('* * * * *'),
    POLL_ON_START: boolean('POLL_ON_START').default(true),
    POLL_TIMEOUT_MS: integer('POLL_TIMEOUT_MS', 1000, 120_000).default(10_000),
    FEED_MAX_BYTES: integer('FEED_MAX_BYTES', 10_000, 100_000_000).default(5_000_000),
    // Changed incidents one poll writes; a feed that changes more is applied over the next polls.
    // Status pages watched beside the main feed, at most: each is polled every minute.
    SOURCES_MAX: integer('SOURCES_MAX', 0, 10_000).default(100),
    POLL_MAX_INCIDENT_CHANGES: integer('POLL_MAX_INCIDENT_CHANGES', 1, 100_000).default(DEFAULT_MAX_INCIDENT_WRITES_PER_POLL),
    ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters (try: openssl rand -hex 32)').optional(),
    // Where users reach this service: links in emails, webhooks and feeds. Unset, pages link to the
    // origin a request came to, and messages sent in the background use http://localhost:PORT.
    PUBLIC_URL: httpUrl('PUBLIC_URL').optional(),
    // 32 bytes as 64 hex characters or base64: encrypts webhook secrets at rest (AES-256-GCM).
    SECRET_KEY: z.string().trim().optional(),
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'SMTP_URL must be smtp://user:pass@host:587 or smtps://...' }).optional(),
    MAIL_FROM: oneMailbox('MAIL_FROM').optional(),
    // Email through Postmark's HTTP API instead of SMTP: what the Workers form uses, where no SMTP
    // connection can be made. The server token is a secret: no message ever prints it.
    MAIL_API_TOKEN: z
      .string()
      .trim()
      .regex(/^[\x21-\x7e]+$/, 'MAIL_API_TOKEN must be a Postmark server token: printable characters, no spaces')
      .optional(),
    MAIL_API_URL: httpUrl('MAIL_API_URL').default('https://api.postmarkapp.com'),
    MAIL_API_STREAM: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, 'MAIL_API_STREAM must be a Postmark message stream ID such as "outbound" (letters, digits, - and _)')
      .default('outbound'),
    // Told when a subscription is paused (a 410, or five days of failures), besides the log.
    ADMIN_EMAIL: oneAddress('ADMIN_EMAIL').optional(),
    // Lets webhooks reach loopback and private addresses: receivers on an internal network, local tests.
    WEBHOOK_ALLOW_PRIVATE: boolean('WEBHOOK_ALLOW_PRIVATE').default(false),
    // Where PagerDuty and Opsgenie subscriptions send: the tools' own APIs unless pointed elsewhere
    // (a proxy, the simulators in tests and the demo). Opsgenie's default depends on the
    // subscription's region; set, this one host serves both regions.
    PAGERDUTY_EVENTS_URL: httpUrl('PAGERDUTY_EVENTS_URL').default(PAGERDUTY_EVENTS_URL_DEFAULT),
    OPSGENIE_API_URL: httpUrl('OPSGENIE_API_URL').optional(),
    // Behind a reverse proxy: rate limits key on the last X-Forwarded-For entry, not the proxy's address.
    TRUST_PROXY: boolean('TRUST_PROXY').default(false),
    // Each client's share of the server's time for answers built for it (http/read-budget.ts):
    // milliseconds of building per second, after a burst of thirty seconds' worth.
    READ_BUDGET_MS_PER_SECOND: integer('READ_BUDGET_MS_PER_SECOND', 1, 1000).default(DEFAULT_READ_BUDGET_MS_PER_SECOND),
    // Retention (core/retention.ts). Poll runs are diagnostics, one a minute: a month answers "what
    // happened last week" in about 45k rows. Rejected payloads are kept once per distinct body; the
    // size cap bounds a vendor that sends a different error page every minute.
    RETENTION_POLL_RUNS_DAYS: integer('RETENTION_POLL_RUNS_DAYS', 1, 3650).default(DEFAULT_RETENTION.pollRunsDays),
    RETENTION_REJECTED_PAYLOADS_DAYS: integer('RETENTION_REJECTED_PAYLOADS_DAYS', 1, 3650).default(DEFAULT_RETENTION.rejectedPayloadsDays),
    REJECTED_PAYLOADS_MAX_BYTES: integer('REJECTED_PAYLOADS_MAX_BYTES', 1_000_000, 10_000_000_000).default(DEFAULT_RETENTION.rejectedPayloadsMaxBytes),
    // Workers only: how long a poll lease and a delivery claim outlive an invocation that was killed
    // holding them (a Worker cannot see that another invocation died; Node can, and frees them at
    // once). Shorter lets a slow poll overlap the next one, or a slow webhook be sent again under
    // its own webhook-id: both safe, both wasted work.
    POLL_LEASE_MS: integer('POLL_LEASE_MS', 1000, 900_000).default(120_000),
    DELIVERY_CLAIM_MS: integer('DELIVERY_CLAIM_MS', 1000, 900_000).default(60_000),
    // The workspace app: the vendor's Web API and the app's credentials. The secret and
    // the signing secret are never printed; tokens the app gets are sealed with SECRET_KEY.
    APP_API_URL: httpUrl('APP_API_URL').default('https://slack.com'),
    APP_CLIENT_ID: z.string().trim().min(1).max(200).optional(),
    APP_CLIENT_SECRET: z.string().trim().min(1).max(200).optional(),
    APP_SIGNING_SECRET: z.string().trim().min(1).max(200).optional(),
    // The MCP server at /mcp: who may use it. none: anyone who reaches it (public data,
    // for a private network); token: a bearer token an admin created; ema: enterprise-managed
    // authorization, access tokens issued here for an ID-JAG from the identity provider EMA_ISSUER.
    MCP_AUTH: z.enum(['none', 'token', 'ema'], { error: 'MCP_AUTH must be none, token or ema' }).default('none'),
    // Requests to /mcp one client (token, EMA subject, or address) may make in any minute. The
    // limiter keeps each client's hits (core/rate-limit.ts), so the ceiling bounds that log too.
    MCP_RATE_LIMIT_PER_MINUTE: integer('MCP_RATE_LIMIT_PER_MINUTE', 1, 1000).default(60),
    // The identity provider whose ID-JAGs /api/oauth.v2.user.access accepts: the `iss` they must
    // carry, and where its signing keys are published.
    // Kept exactly as given (a trailing slash too): `iss` is compared as a string.
    EMA_ISSUER: z.url({ protocol: /^https?$/, error: 'EMA_ISSUER must be an http(s) URL' }).optional(),
    EMA_JWKS_URL: httpUrl('EMA_JWKS_URL').optional(),
    // The client credentials the agent platform presents with each ID-JAG. The secret is never printed.
    EMA_CLIENT_ID: z.string().trim().min(1).max(200).optional(),
    EMA_CLIENT_SECRET: z.string().trim().min(16, 'EMA_CLIENT_SECRET must be at least 16 characters').max(200).optional(),
    // The workspace's SCIM directory: group subscriptions read their members from it.
    // The token is admin-scoped and never printed; SCIM_SYNC_SECONDS is how old a group's member list may get.
    SCIM_URL: httpUrl('SCIM_URL').default('https://api.slack.com'),
    SCIM_TOKEN: z.string().trim().min(1).max(500).optional(),
    SCIM_SYNC_SECONDS: integer('SCIM_SYNC_SECONDS', 10, 86_400).default(300),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error'], { error: 'LOG_LEVEL must be debug, info, warn or error' }).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'LOG_FORMAT must be json or pretty' }).optional(),
  })
  .check((ctx) => {
    const settings = ctx.value;
    // Two ways to send mail would leave which one is used to the entry: say so instead.
    if (settings.SMTP_URL && settings.MAIL_API_TOKEN) {
      ctx.issues.push({ code: 'custom', input: settings, path: ['MAIL_API_TOKEN'], message: 'set either SMTP_URL or MAIL_API_TOKEN, not both' });
    }
    // Postmark sends only from a confirmed sender signature; the SMTP default From would fail every mail.
    if (settings.MAIL_API_TOKEN && !settings.MAIL_FROM) {
      ctx.issues.push({
        code: 'custom',
        input: settings,
        path: ['MAIL_FROM'],
        message: 'MAIL_API_TOKEN needs MAIL_FROM: an address confirmed as a sender signature on the Postmark server',
      });
    }
    if (settings.MCP_AUTH === 'ema') {
      for (const key of ['EMA_ISSUER', 'EMA_JWKS_URL', 'EMA_CLIENT_ID', 'EMA_CLIENT_SECRET'] as const) {
        if (!settings[key]) ctx.issues.push({ code: 'custom', input: settings, path: [key], message: `MCP_AUTH=ema needs ${key}` });
      }
      // The ID-JAG's audience is checked against ${PUBLIC_URL}/mcp: taken from the request's Host
      // instead, a client could pass off an assertion meant for another server by naming its host.
      if (!settings.PUBLIC_URL) {
        ctx.issues.push({
          code: 'custom',
          input: settings,
          path: ['PUBLIC_URL'],
          message: 'MCP_AUTH=ema needs PUBLIC_URL: ID-JAGs must name ${PUBLIC_URL}/mcp as their audience',
        });
      }
    }
    // Tokens are made through the admin API: without ADMIN_TOKEN nobody could ever use /mcp.
    if (settings.MCP_AUTH === 'token' && !settings.ADMIN_TOKEN) {
      ctx.issues.push({
        code: 'custom',
        input: settings,
        path: ['ADMIN_TOKEN'],
        message: 'MCP_AUTH=token needs ADMIN_TOKEN: tokens are created through the admin API',
      });
    }
  });

export type Config = z.output<typeof configSchema>;
type SettingKey = keyof typeof configSchema.shape;

/**
 * Settings only the Workers form reads (mail through Postmark's HTTP API, how long a killed
 * invocation's lease and claims last): the Node command
 * takes no --flag for them, though its environment is parsed (and checked) with them.
 */
export const WORKERS_ONLY_KEYS = [
  'MAIL_API_TOKEN',
  'MAIL_API_URL',
  'MAIL_API_STREAM',
  'POLL_LEASE_MS',
  'DELIVERY_CLAIM_MS',
] as const satisfies readonly SettingKey[];

/** The settings of the Node command, each also a --flag. */
export type ConfigKey = Exclude<SettingKey, (typeof WORKERS_ONLY_KEYS)[number]>;
const SETTING_KEYS = Object.keys(configSchema.shape) as SettingKey[];
export const CONFIG_KEYS = SETTING_KEYS.filter((key): key is ConfigKey => !(WORKERS_ONLY_KEYS as readonly string[]).includes(key));

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses settings; empty strings count as unset, so `ADMIN_TOKEN=` leaves the admin API off. */
export function parseConfig(source: Record<string, string | undefined>): Config {
  const input: Record<string, string> = {};
  for (const key of SETTING_KEYS) {
    const value = source[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The retention settings as the pruner takes them. */
export function retentionSettings(config: Config): RetentionSettings {
  return {
    pollRunsDays: config.RETENTION_POLL_RUNS_DAYS,
    rejectedPayloadsDays: config.RETENTION_REJECTED_PAYLOADS_DAYS,
    rejectedPayloadsMaxBytes: config.REJECTED_PAYLOADS_MAX_BYTES,
  };
}

/** How /mcp admits clients (see src/http/mcp/mcp-auth.ts). */
export type McpSettings = {
  auth: 'none' | 'token' | 'ema';
  ratePerMinute: number;
  ema?: { issuer: string; jwksUrl: string; clientId: string; clientSecret: string };
};

export function mcpSettings(config: Config): McpSettings {
  const { EMA_ISSUER: issuer, EMA_JWKS_URL: jwksUrl, EMA_CLIENT_ID: clientId, EMA_CLIENT_SECRET: clientSecret } = config;
  const ema = config.MCP_AUTH === 'ema' && issuer && jwksUrl && clientId && clientSecret ? { issuer, jwksUrl, clientId, clientSecret } : undefined;
  return { auth: config.MCP_AUTH, ratePerMinute: config.MCP_RATE_LIMIT_PER_MINUTE, ema };
}

/** `--database-path` for DATABASE_PATH. */
export function flagName(key: ConfigKey): string {
  return key.toLowerCase().replace(/_/g, '-');
}

/**
 * A setting that parsed but does not work on this machine (a port in use, a file that is not
 * SQLite): one line naming the setting, what is wrong with its value, and what to do instead.
 */
export function settingError(setting: string, value: string, problem: string, fix: string): ConfigError {
  return new ConfigError(`${setting} ${JSON.stringify(value)}: ${problem}. Fix: ${fix}`);
}
