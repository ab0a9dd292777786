/**
 * What the HTTP layer needs, built once by each entry and handed to createApp. Each route module
 * takes the part it uses (a Pick of these, and of `store` only the ports it calls).
 */
import type { Context } from 'hono';
import type { AppInstalls } from '../app/workspace-app/installs.ts';
import type { AccessTokens, IdJagVerifier } from '../adapters/jose-ema-tokens.ts';
import type { Poller } from '../app/poller.ts';
import type { SourcePoller } from '../app/source-poller.ts';
import type { ServiceMetrics } from '../app/service-metrics.ts';
import type { SourceService } from '../app/sources.ts';
import type { SubscriptionService } from '../app/subscriptions.ts';
import type { CursorCodec } from '../core/cursor.ts';
import type { McpSettings } from '../config.ts';
import type { Clock, Logger, OutboxSignal, Store } from '../core/ports.ts';
import type { GroupDeps } from '../app/group-subscriptions.ts';
import type { StaticAssets } from './routes/static-assets.ts';

export type AppDeps = {
  store: Store;
  poller: Poller;
  /** Polls the sources beside the main feed (the admin's poll route). */
  sourcePoller: SourcePoller;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  /** Admin endpoints answer 403 admin_disabled when unset. */
  adminToken?: string;
  /** PUBLIC_URL: the origin links in pages, feeds and messages use; unset, the request's own origin. */
  publicUrl?: string;
  /** The files of public/, served at their paths. */
  assets: StaticAssets;
  subscriptions: SubscriptionService;
  /** The status pages watched beside the main feed. */
  sources: SourceService;
  metrics: ServiceMetrics;
  /** WEBHOOK_ALLOW_PRIVATE: plain http: URLs are accepted for webhooks too. */
  allowPrivateWebhooks: boolean;
  /** Told when a route wrote deliveries (a replay), so the runtime runs a delivery round soon. */
  outbox: OutboxSignal;
  /** When this process started, epoch ms: /healthz allows a first poll this long to succeed. */
  startedAt: number;
  /** Cleans a vendor note body (HTML) for a page: adapters/html-sanitizer.ts, whose parser needs Node's path and url. */
  sanitizeHtml: (html: string) => string;
  /**
   * The address a request came from, for the sign-up rate limits and the admin-token guess
   * throttle: the socket's peer on Node. Forwarding headers are trusted only with TRUST_PROXY;
   * without it, behind a proxy every client shares the proxy's limit.
   */
  clientAddress: (c: Context) => string;
  /** READ_BUDGET_MS_PER_SECOND: each client's share of time for answers built for it (read-budget.ts). */
  readBudgetMsPerSecond?: number;
  /** The runtime's timer, for holding a refused costly read (read-budget.ts); unset, refusals answer at once. */
  pause?: (ms: number) => Promise<void>;
  /** The workspace app's installs; absent while APP_CLIENT_ID or APP_CLIENT_SECRET is unset. */
  appInstalls?: AppInstalls;
  /** APP_SIGNING_SECRET: every `/status` request is checked with it; unset, none is answered. */
  appSigningSecret?: string;
  /** The MCP server at /mcp; without it, MCP_AUTH=none with the default rate limit. */
  mcp?: McpDeps;
  /** Group subscriptions from the SCIM directory; absent, `group` requests are refused. */
  groups?: GroupDeps;
};

/** What /mcp and the EMA token endpoint need: the settings, and under MCP_AUTH=ema the JOSE side. */
export type McpDeps = {
  settings: McpSettings;
  /** MCP_AUTH=ema: checks an ID-JAG against EMA_ISSUER's keys (adapters/jose-ema-tokens.ts). */
  verifyIdJag?: IdJagVerifier;
  /** MCP_AUTH=ema: issues and checks this server's access tokens. */
  tokens?: AccessTokens;
};
