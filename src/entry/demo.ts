/** `npm run demo`: the simulated vendor (status feed and Web API), three simulated pages in the Statuspage format, a mail catcher, a webhook catcher, and statuswatch polling them all on a fresh demo database. */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import type { Logger } from '../core/ports.ts';
import { generateSecretKey } from '../core/secret-box.ts';
import { startMailCatcher } from '../sim/mail-catcher.ts';
import { startSimulatedVendor } from '../sim/server.ts';
import { startWebhookCatcher } from '../sim/webhook-catcher.ts';
import { startOnCallReceiver } from '../sim/oncall/receiver.ts';
import { seedDemoWorkspace } from '../sim/web-api/demo-workspace.ts';
import { startSimulatedWebApi } from '../sim/web-api/server.ts';
import { startSimulatedScim } from '../sim/scim/server.ts';
import { createChatSims } from '../sim/chats/index.ts';
import { startDemoStatuspages } from '../sim/statuspage/demo-pages.ts';
import { serveSimulator } from '../sim/serve-simulator.ts';
import { emaAccessToken } from '../sim/idp/agent-flow.ts';
import { startSimulatedIdp } from '../sim/idp/server.ts';
import { acquireDemoLock } from './demo-lock.ts';
import { startService } from './node.ts';

/** Relative to the folder the demo runs in. */
export const DEMO_DATABASE = './data/demo.db';
const DEMO_LOCK = './data/demo.lock';

export async function runDemo(config: Config, logger: Logger, stepSeconds: number): Promise<{ close(): Promise<void> }> {
  // Before anything else: a second demo must neither reset the first one's database nor start.
  const lock = acquireDemoLock(DEMO_LOCK, DEMO_DATABASE);
  const started: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    for (const part of started.reverse()) await part.close();
    lock.release();
  };
  try {
    for (const suffix of ['', '-wal', '-shm']) rmSync(DEMO_DATABASE + suffix, { force: true });
    const sim = await startSimulatedVendor({ port: 0, host: '127.0.0.1', autoAdvanceMs: Math.max(1, stepSeconds) * 1000 });
    started.push(sim);
    // Other vendors' status pages, each with a story of its own, added below as sources.
    const statuspages = await startDemoStatuspages({ host: '127.0.0.1', autoAdvanceMs: Math.max(1, stepSeconds) * 1000 });
    started.push(...statuspages);
    // The directory group subscriptions sync from; seeded so a SCIM client sees people at once.
    const scim = await startSimulatedScim({ port: 0, host: '127.0.0.1' });
    started.push(scim);
    await scim.scim.fetch(
      new Request(`${scim.url}/_sim/seed`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          users: 40,
          multiChannelGuests: 3,
          groups: [
            { displayName: 'Engineering', members: 25 },
            { displayName: 'Support', members: 10 },
          ],
        }),
      }),
    );
    const mail = await startMailCatcher();
    started.push(mail);
    const hooks = await startWebhookCatcher();
    started.push(hooks);
    // PagerDuty and Opsgenie, simulated: keys made for this run, known to the simulator alone.
    const onCall = await startOnCallReceiver();
    started.push(onCall);
    const onCallKeys = { routing_key: randomBytes(16).toString('hex'), api_key: crypto.randomUUID() };
    onCall.addPagerDutyKey(onCallKeys.routing_key);
    onCall.addOpsgenieKey(onCallKeys.api_key);
    // Microsoft Teams and Discord, simulated: each one's page shows what the service sent it.
    const chats = await serveSimulator(createChatSims(), { host: '127.0.0.1' });
    started.push(chats);
    // The vendor's Web API with a workspace and a channel, whose page shows the messages posted there.
    const webApi = await startSimulatedWebApi({ port: 0, host: '127.0.0.1' });
    started.push(webApi);
    const chat = seedDemoWorkspace(webApi.webApi.state);
    // The identity provider EMA trusts: /mcp takes user tokens obtained through it.
    const idp = await startSimulatedIdp({ port: 0, host: '127.0.0.1' });
    started.push(idp);
    const ema = { clientId: 'demo-agent-platform', clientSecret: `demo-${randomBytes(16).toString('hex')}` };
    // A token per run: the demo may listen on every interface, so a published one would open /admin to anyone.
    const adminToken = config.ADMIN_TOKEN ?? `demo-${randomBytes(12).toString('hex')}`;
    const served = await demoAddress(config);
    const service = await startService(
      {
        ...config,
        PORT: served.port,
        // EMA checks ID-JAGs against ${PUBLIC_URL}/mcp, so the demo needs one before it listens.
        PUBLIC_URL: served.publicUrl,
        DATABASE_PATH: DEMO_DATABASE,
        STATUS_URL: sim.url,
        // Every ten seconds, so each scenario step shows up within moments.
        POLL_SCHEDULE: '*/10 * * * * *',
        POLL_ON_START: true,
        ADMIN_TOKEN: adminToken,
        SMTP_URL: mail.smtpUrl,
        // The webhook catcher listens on loopback over plain http, as a receiver on one's own network would.
        WEBHOOK_ALLOW_PRIVATE: true,
        PAGERDUTY_EVENTS_URL: onCall.pagerDutyUrl,
        OPSGENIE_API_URL: onCall.opsgenieUrl,
        MAIL_FROM: config.MAIL_FROM ?? 'statuswatch demo <status@demo.localhost>',
        // The demo database is new on every run, so its key is too: no secret.key is left in ./data.
        SECRET_KEY: config.SECRET_KEY ?? generateSecretKey(),
        // Group subscriptions read the seeded directory: "Engineering" and "Support".
        SCIM_URL: scim.url,
        SCIM_TOKEN: scim.token,
        MCP_AUTH: 'ema',
        EMA_ISSUER: idp.url,
        EMA_JWKS_URL: idp.jwksUrl,
        EMA_CLIENT_ID: ema.clientId,
        EMA_CLIENT_SECRET: ema.clientSecret,
        // The workspace app, installed below in the simulated workspace.
        APP_API_URL: webApi.url,
        APP_CLIENT_ID: webApi.webApi.state.app.clientId,
        APP_CLIENT_SECRET: webApi.webApi.state.app.clientSecret,
      },
      logger,
    );
    started.push(service);
    // Installed and subscribed as an admin would, so the channel page shows the app's message per
    // incident, edited in place as the scenario moves, beside the dashboard.
    const admin = adminApi(service.url, adminToken);
    await addDemoSources(
      admin,
      statuspages.map((page) => page.url),
    );
    await subscribeDemoChannel(admin, chat.botToken, chat.channelId);
    // Subscribed as an admin would; the secret shown this once is what the catcher checks signatures against.
    const { secret } = (await admin('/api/subscriptions', { channel: 'webhook', url: hooks.hookUrl })) as { secret: string };
    hooks.trust(secret);
    await admin('/api/subscriptions', { channel: 'pagerduty', routing_key: onCallKeys.routing_key });
    await admin('/api/subscriptions', { channel: 'opsgenie', api_key: onCallKeys.api_key });
    await admin('/api/subscriptions', { channel: 'teams', url: `${chats.url}/workflows/demo` });
    await admin('/api/subscriptions', { channel: 'discord', url: `${chats.url}/api/webhooks/1/demo-token` });
    // The whole EMA flow once, as an agent platform would run it, so the banner hands out a working token.
    const mcpToken = await emaAccessToken({ idpUrl: idp.url, serviceUrl: service.url, publicUrl: served.publicUrl, ...ema, sub: 'U0DEMO' });
    process.stdout.write(
      demoBanner({
        url: service.url,
        adminToken,
        simUrl: sim.url,
        statuspages: statuspages.map(({ name, kind, url }) => ({ name, kind, url })),
        mailUrl: mail.pageUrl,
        webhookUrl: hooks.pageUrl,
        onCallUrl: onCall.pageUrl,
        chatsUrl: chats.url,
        webApiUrl: webApi.url,
        channelUrl: `${webApi.url}/channels/${chat.channelId}`,
        scimUrl: scim.url,
        scimToken: scim.token,
        mcpToken: mcpToken.access_token,
        idpUrl: idp.url,
      }),
    );
    return { close };
  } catch (error) {
    await close();
    throw error;
  }
}

type AdminCall = (path: string, body: unknown, options?: { tolerate?: number[] }) => Promise<Record<string, unknown>>;

/** POSTs to the service's admin API as the demo's admin; a refusal (unless tolerated) stops the demo with the answer. */
function adminApi(serviceUrl: string, adminToken: string): AdminCall {
  return async (path, body, options = {}) => {
    const res = await fetch(serviceUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    // Never the answer itself: a webhook subscription's answer carries its secret.
    if (!res.ok && !options.tolerate?.includes(res.status))
      throw new Error(`demo: POST ${path} answered ${res.status} ${String(answer.detail ?? answer.error ?? '').slice(0, 300)}`);
    return answer;
  };
}

/**
 * Adds each page as a source, as an admin would (named from the page's own name), and polls it
 * once at once so its history is on the dashboard before the schedule's next tick.
 */
async function addDemoSources(admin: AdminCall, pageUrls: readonly string[]): Promise<void> {
  for (const url of pageUrls) {
    const { source } = (await admin('/api/admin/sources', { kind: 'statuspage', url })) as { source: { id: string } };
    // 409: the schedule's poll of the new source is reading it already.
    await admin(`/api/admin/poll?source=${encodeURIComponent(source.id)}`, {}, { tolerate: [409] });
  }
}

/** Installs the app from the demo workspace's token and subscribes its channel, through the admin API. */
async function subscribeDemoChannel(admin: AdminCall, botToken: string, channelId: string): Promise<void> {
  const { installation } = (await admin('/api/app/installations', { token: botToken })) as { installation: { id: string } };
  await admin('/api/subscriptions', { channel: 'app', installation: installation.id, conversation: channelId });
}

/**
 * The port and PUBLIC_URL the demo serves at. Port 0 (any free one) is chosen here, before the
 * service starts: PUBLIC_URL must name it. Another process could take it in between; the start
 * then fails with the port's usual message.
 */
async function demoAddress(config: Config): Promise<{ port: number; publicUrl: string }> {
  const port =
    config.PORT !== 0
      ? config.PORT
      : await new Promise<number>((resolve, reject) => {
          const probe = createServer();
          probe.once('error', reject);
          probe.listen(0, config.HOST, () => {
            const { port: free } = probe.address() as AddressInfo;
            probe.close(() => resolve(free));
          });
        });
  if (config.PUBLIC_URL) return { port, publicUrl: config.PUBLIC_URL };
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  return { port, publicUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}` };
}

/** What a new user wants to open, each a URL that shows something at once. */
export function demoBanner(urls: {
  url: string;
  adminToken: string;
  simUrl: string;
  /** The simulated pages in the Statuspage format, each added as a source. */
  statuspages?: Array<{ name: string; kind: string; url: string }>;
  mailUrl: string;
  webhookUrl: string;
  /** The simulated PagerDuty and Opsgenie's page. */
  onCallUrl?: string;
  /** The simulated Teams and Discord, whose pages are /teams and /discord. */
  chatsUrl?: string;
  webApiUrl: string;
  channelUrl: string;
  scimUrl?: string;
  scimToken?: string;
  /** An EMA access token for /mcp (an hour), and the identity provider it came through. */
  mcpToken?: string;
  idpUrl?: string;
}): string {
  const { url } = urls;
  const rows: Array<[string, string]> = [
    ['Dashboard', `${url}/`],
    ['Search (finds seeded history now)', `${url}/incidents?q=huddles`],
    ['Admin (sign in with the token)', `${url}/admin   token: ${urls.adminToken}`],
    ['Subscribe by email', `${url}/subscribe`],
    ['Mail catcher (mail sent lands here)', urls.mailUrl],
    ['Webhook catcher (signed webhooks land here)', urls.webhookUrl],
    ...(urls.onCallUrl !== undefined ? [['PagerDuty and Opsgenie (simulated; alerts land here)', urls.onCallUrl] as [string, string]] : []),
    ...(urls.chatsUrl === undefined
      ? []
      : ([
          ['Teams (simulated: a card per change)', `${urls.chatsUrl}/teams`],
          ['Discord (simulated: one message per incident)', `${urls.chatsUrl}/discord`],
        ] as Array<[string, string]>)),
    ['Widget as an embeddable page', `${url}/embed?service=Huddles`],
    ['Widget script', `<script src="${url}/widget.js" async></script><statuswatch-widget></statuswatch-widget>`],
    ['Feeds', `${url}/feed.atom  ${url}/feed.rss  ${url}/feed.json`],
    ['Archive API, with search', `${url}/api/incidents?q=huddles`],
    ['Vendor-format API', `${url}/api/v2.0.0/current`],
    ['Poll now', `curl -X POST -H 'Authorization: Bearer ${urls.adminToken}' ${url}/api/admin/poll`],
    ['Simulated vendor', `${urls.simUrl}/api/v2.0.0/current  (state: ${urls.simUrl}/_sim/state)`],
    ...(urls.statuspages ?? []).map((page): [string, string] => [
      `Status page ${page.name} (${page.kind}, simulated)`,
      `${page.url}/api/v2/summary.json  (state: ${page.url}/_sim/state)`,
    ]),
    ...(urls.statuspages?.length ? [['Sources (those pages, polled beside the vendor)', `${url}/api/sources`] as [string, string]] : []),
    ['Team-chat channel (simulated)', urls.channelUrl],
    ['Simulated Web API', `${urls.webApiUrl}/api/<method>  (state: ${urls.webApiUrl}/_sim/state)`],
  ];
  if (urls.scimUrl !== undefined) {
    rows.push(['Simulated SCIM directory', `${urls.scimUrl}/scim/v2/Users  token: ${urls.scimToken ?? ''}  (state: ${urls.scimUrl}/_sim/state)`]);
  }
  if (urls.mcpToken !== undefined) {
    rows.push(['MCP server (EMA, token valid 1 h)', `${url}/mcp  Authorization: Bearer ${urls.mcpToken}`]);
    rows.push(['Simulated identity provider', `${urls.idpUrl}/.well-known/jwks.json  (state: ${urls.idpUrl}/_sim/state)`]);
  }
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return [
    '',
    'statuswatch demo is running. Incidents appear, gain notes, change and resolve every few seconds.',
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`),
    '',
    'Ctrl-C stops it all.',
    '',
  ].join('\n');
}
