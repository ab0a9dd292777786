/** The `statuswatch` command line: serve, poll, simulate, migrate, backup, export-d1, demo, manifest (cli-process.ts runs it as the process). */
import { parseArgs } from 'node:util';
import { createConsoleLogger } from '../adapters/console-logger.ts';
import { CONFIG_KEYS, ConfigError, flagName, parseConfig, settingError, type Config, type ConfigKey } from '../config.ts';
import type { StatusEvent } from '../core/events.ts';
import type { Logger } from '../core/ports.ts';
import type { CommandOutput } from './command-output.ts';
import { listenError } from './listen-error.ts';
import { SHUTDOWN_LIMIT_MS } from './node-shutdown.ts';
import { plural } from '../core/plural.ts';

type Command = {
  summary: string;
  /** Settings this command reads; each is also a --flag. */
  settings: readonly ConfigKey[];
  extraFlags?: Record<string, { type: 'string' | 'boolean'; help: string }>;
  /** The one argument that is not a flag, for the commands that take one (`backup FILE`). */
  argument?: { name: string; help: string };
  /**
   * Loads the modules it needs itself (`await import`), so a start loads one command's code: the
   * simulators, the demo's mail parser and the export never load for `serve`, and `--help` or
   * `manifest` loads no server at all.
   */
  run(
    config: Config,
    flags: Record<string, string | boolean | undefined>,
    logger: Logger,
    argument: string | undefined,
    out: CommandOutput,
  ): Promise<number | 'running'>;
};

const SETTING_HELP: Record<ConfigKey, string> = {
  PORT: 'HTTP port (3000)',
  HOST: 'address to listen on (0.0.0.0)',
  DATABASE_PATH: 'SQLite file of the archive (./data/statuswatch.db)',
  STATUS_URL: 'the vendor status host (https://slack-status.com)',
  POLL_SCHEDULE: 'cron expression for polls ("* * * * *"; six fields for seconds)',
  POLL_ON_START: 'poll once right after starting (true)',
  POLL_TIMEOUT_MS: 'timeout of each feed request, ms (10000)',
  FEED_MAX_BYTES: 'largest feed body accepted, bytes (5000000)',
  SOURCES_MAX: 'status pages watched beside the main feed, at most (100)',
  POLL_MAX_INCIDENT_CHANGES: 'changed incidents one poll writes; the rest wait for the next polls (200)',
  ADMIN_TOKEN: 'bearer token for /api/admin/*; admin API off when unset',
  PUBLIC_URL: 'the URL users reach this service at, for links in messages and feeds',
  SECRET_KEY: 'encrypts webhook secrets at rest: 64 hex characters (openssl rand -hex 32)',
  SMTP_URL: 'SMTP server for email, smtp(s)://user:pass@host:port; email off when unset',
  MAIL_FROM: 'sender of emails, e.g. "statuswatch <status@example.com>"',
  ADMIN_EMAIL: 'told by email when a subscription is paused (needs SMTP_URL)',
  WEBHOOK_ALLOW_PRIVATE: 'let webhooks reach loopback and private addresses (false)',
  PAGERDUTY_EVENTS_URL: "where pagerduty subscriptions send events (PagerDuty's https://events.pagerduty.com/v2/enqueue)",
  OPSGENIE_API_URL: "the Opsgenie API host for every opsgenie subscription (unset: each region's own, https://api.opsgenie.com or https://api.eu.opsgenie.com)",
  TRUST_PROXY: 'behind a reverse proxy: rate limits use the last X-Forwarded-For entry (false)',
  READ_BUDGET_MS_PER_SECOND: "each client's share of the server's time for answers not in the cache, ms a second (100)",
  RETENTION_POLL_RUNS_DAYS: 'days poll runs are kept (30; the newest and the last successful one always stay)',
  RETENTION_REJECTED_PAYLOADS_DAYS: 'days a refused payload is kept after it was last seen (30)',
  REJECTED_PAYLOADS_MAX_BYTES: 'total size of refused payloads kept, bytes (50000000; the newest always stays)',
  APP_API_URL: "the vendor's Web API host for the workspace app (https://slack.com)",
  APP_CLIENT_ID: "the workspace app's client id",
  APP_CLIENT_SECRET: "the workspace app's client secret (a secret: never printed)",
  APP_SIGNING_SECRET: "the workspace app's signing secret (a secret: never printed)",
  SCIM_URL: "the workspace's SCIM directory, paths /scim/v2 and /scim/v1 below it (https://api.slack.com)",
  SCIM_TOKEN: 'admin-scoped token for the SCIM directory (a secret: never printed)',
  SCIM_SYNC_SECONDS: "how old a group subscription's member list may get before it is synced again (300)",
  MCP_AUTH: 'who may use the MCP server at /mcp: none, token (admin-made bearer tokens) or ema (none)',
  MCP_RATE_LIMIT_PER_MINUTE: 'requests to /mcp one client may make a minute (60)',
  EMA_ISSUER: "MCP_AUTH=ema: the identity provider's issuer, as its ID-JAGs carry it in iss",
  EMA_JWKS_URL: "MCP_AUTH=ema: the identity provider's JWKS URL (its signing keys)",
  EMA_CLIENT_ID: 'MCP_AUTH=ema: the client id the agent platform presents with an ID-JAG',
  EMA_CLIENT_SECRET: 'MCP_AUTH=ema: its client secret (a secret: never printed)',
  LOG_LEVEL: 'debug, info, warn or error (info)',
  LOG_FORMAT: 'json or pretty (pretty on a terminal, else json)',
};

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'Serve the HTTP API and poll the feed on schedule (what npm start runs).',
    settings: CONFIG_KEYS,
    async run(config, _flags, logger) {
      const { startService } = await import('./node.ts');
      const service = await startService(config, logger);
      stopOnSignals(logger, () => service.close());
      return 'running';
    },
  },
  poll: {
    summary: 'Run one poll cycle against the archive, print what changed, and exit (1 if the feed could not be read).',
    settings: ['DATABASE_PATH', 'STATUS_URL', 'POLL_TIMEOUT_MS', 'FEED_MAX_BYTES', 'POLL_MAX_INCIDENT_CHANGES', 'LOG_LEVEL', 'LOG_FORMAT'],
    extraFlags: { json: { type: 'boolean', help: 'print the result as JSON' } },
    async run(config, flags, logger) {
      const [{ createNodeRuntime }, { toApiPollResult }] = await Promise.all([import('./node.ts'), import('../http/api-json.ts')]);
      const runtime = await createNodeRuntime(config, logger, undefined, { keepsSecrets: false });
      try {
        // Deliveries this poll causes wait in the outbox for the running service to send.
        const result = await runtime.poller.pollOnce();
        if (flags.json) {
          // The API's answer to POST /api/admin/poll, byte for byte in shape: one dialect for scripts.
          const answer = result.status === 'skipped' ? { ok: false, error: 'poll_in_progress', detail: result.reason } : toApiPollResult(result);
          process.stdout.write(JSON.stringify(answer, null, 2) + '\n');
        } else if (result.status === 'skipped') {
          process.stdout.write(`skipped: ${result.reason}\n`);
        } else {
          process.stdout.write(`poll ${result.status}${result.unchanged ? ' (feed unchanged)' : ''}: ${result.events.length} change(s)\n`);
          if (result.run.pendingIncidents) process.stdout.write(`  ${plural(result.run.pendingIncidents, 'changed incident')} left for the next polls\n`);
          for (const event of result.events) process.stdout.write(describeEvent(event) + '\n');
          for (const source of result.run.sources) {
            if (source.error) process.stdout.write(`  ${source.source}: ${source.error}\n`);
          }
        }
        return result.status === 'failed' ? 1 : 0;
      } finally {
        await runtime.close();
      }
    },
  },
  simulate: {
    summary:
      "Run the simulated vendor alone: a status feed that plays a scenario of incidents, its SCIM directory, with --web-api its Web API, with --idp an identity provider for EMA, and with --statuspage pages in the Statuspage format (its own and the demo's three).",
    settings: ['HOST', 'LOG_LEVEL', 'LOG_FORMAT'],
    extraFlags: {
      'sim-port': { type: 'string', help: 'port of the simulated vendor (4010)' },
      'scim-port': { type: 'string', help: 'port of the simulated SCIM directory (4012)' },
      idp: { type: 'boolean', help: 'also run the simulated identity provider (EMA_ISSUER for MCP_AUTH=ema)' },
      'idp-port': { type: 'string', help: 'port of the simulated identity provider (4013; implies --idp)' },
      'step-seconds': { type: 'string', help: 'seconds between scenario steps (15; 0 = only on POST /_sim/advance)' },
      'web-api': { type: 'boolean', help: 'also run the simulated Web API (APP_API_URL for the workspace app)' },
      'web-api-port': { type: 'string', help: 'port of the simulated Web API (4011; implies --web-api)' },
      statuspage: {
        type: 'boolean',
        help: "also run simulated pages in the Statuspage format, each with a story of its own: a page of its own and the demo's three",
      },
      'statuspage-port': {
        type: 'string',
        help: "port of the simulated Statuspage page (4014; the demo's pages on the next three; 0 = free ports; implies --statuspage)",
      },
    },
    async run(config, flags, logger) {
      const {
        startSimulatedVendor,
        startSimulatedScim,
        startSimulatedIdp,
        startSimulatedStatuspage,
        startDemoStatuspages,
        startSimulatedWebApi,
        seedDemoWorkspace,
      } = await import('./simulators.ts');
      const stepSeconds = stepSecondsFlag(flags);
      const port = portFlag(flags, 'sim-port', 4010);
      const webApiPort = flags['web-api'] || flags['web-api-port'] !== undefined ? portFlag(flags, 'web-api-port', 4011) : null;
      const sim = await startSimulatedVendor({ port, host: config.HOST, autoAdvanceMs: stepSeconds * 1000 || undefined }).catch((error: unknown) => {
        throw listenError(error, { HOST: config.HOST, PORT: port }, '--sim-port');
      });
      logger.info('simulated vendor is serving', { url: sim.url, current: `${sim.url}/api/v2.0.0/current`, control: `${sim.url}/_sim/state` });
      // The SCIM directory always (group subscriptions read it); the Web API on request.
      const scimPort = portFlag(flags, 'scim-port', 4012);
      const scim = await startSimulatedScim({ port: scimPort, host: config.HOST }).catch(async (error: unknown) => {
        await sim.close();
        throw listenError(error, { HOST: config.HOST, PORT: scimPort }, '--scim-port');
      });
      logger.info('simulated SCIM directory is serving', {
        url: `${scim.url}/scim/v2`,
        v1: `${scim.url}/scim/v1`,
        token: scim.token,
        control: `${scim.url}/_sim/state`,
      });
      // On request, the identity provider MCP_AUTH=ema trusts, so its flow runs offline.
      const idpPort = flags.idp || flags['idp-port'] !== undefined ? portFlag(flags, 'idp-port', 4013) : null;
      const idp =
        idpPort === null
          ? null
          : await startSimulatedIdp({ port: idpPort, host: config.HOST }).catch(async (error: unknown) => {
              await scim.close();
              await sim.close();
              throw listenError(error, { HOST: config.HOST, PORT: idpPort }, '--idp-port');
            });
      if (idp) {
        logger.info('simulated identity provider is serving', {
          EMA_ISSUER: idp.url,
          EMA_JWKS_URL: idp.jwksUrl,
          token: `${idp.url}/oauth2/token`,
          login: `${idp.url}/_sim/login`,
        });
      }
      const pagePort = flags.statuspage || flags['statuspage-port'] !== undefined ? portFlag(flags, 'statuspage-port', 4014) : null;
      const page =
        pagePort === null
          ? null
          : await startSimulatedStatuspage({ port: pagePort, host: config.HOST, autoAdvanceMs: stepSeconds * 1000 || undefined }).catch(
              async (error: unknown) => {
                await idp?.close();
                await scim.close();
                await sim.close();
                throw listenError(error, { HOST: config.HOST, PORT: pagePort }, '--statuspage-port');
              },
            );
      if (page)
        logger.info('simulated Statuspage page is serving', { url: page.url, summary: `${page.url}/api/v2/summary.json`, control: `${page.url}/_sim/state` });
      // The demo's pages beside it, on the ports that follow (free ones when it took a free one).
      const demoPages =
        pagePort === null
          ? []
          : await startDemoStatuspages({
              host: config.HOST,
              firstPort: pagePort === 0 ? 0 : pagePort + 1,
              autoAdvanceMs: stepSeconds * 1000 || undefined,
            }).catch(async (error: unknown) => {
              await page?.close();
              await idp?.close();
              await scim.close();
              await sim.close();
              // The port that was taken, whichever of the three it was.
              throw listenError(error, { HOST: config.HOST, PORT: (error as { port?: number }).port ?? pagePort + 1 }, '--statuspage-port');
            });
      for (const demoPage of demoPages) {
        logger.info('simulated Statuspage page is serving', {
          name: demoPage.name,
          url: demoPage.url,
          summary: `${demoPage.url}/api/v2/summary.json`,
          control: `${demoPage.url}/_sim/state`,
        });
      }
      const closePages = async () => {
        for (const demoPage of demoPages) await demoPage.close();
        await page?.close();
      };
      if (webApiPort === null) {
        stopOnSignals(logger, async () => {
          await closePages();
          await idp?.close();
          await scim.close();
          await sim.close();
        });
        return 'running';
      }
      const webApi = await startSimulatedWebApi({ port: webApiPort, host: config.HOST }).catch(async (error: unknown) => {
        await closePages();
        await idp?.close();
        await scim.close();
        await sim.close();
        throw listenError(error, { HOST: config.HOST, PORT: webApiPort }, '--web-api-port');
      });
      const demo = seedDemoWorkspace(webApi.webApi.state);
      const { clientId, clientSecret } = webApi.webApi.state.app;
      // A simulator's made-up credentials: printed so a local app can be pointed at it.
      logger.info('simulated Web API is serving', {
        url: webApi.url,
        channel: `${webApi.url}/channels/${demo.channelId}`,
        control: `${webApi.url}/_sim/state`,
        clientId,
        clientSecret,
        botToken: demo.botToken,
      });
      stopOnSignals(logger, async () => {
        await webApi.close();
        await closePages();
        await idp?.close();
        await scim.close();
        await sim.close();
      });
      return 'running';
    },
  },
  migrate: {
    summary: 'Create or upgrade the archive database (serve and poll also do this on start).',
    settings: ['DATABASE_PATH', 'LOG_LEVEL', 'LOG_FORMAT'],
    async run(config, _flags, logger) {
      const { openSqliteArchive } = await import('./open-sqlite.ts');
      openSqliteArchive(config.DATABASE_PATH).close();
      logger.info('database is up to date', { database: config.DATABASE_PATH });
      return 0;
    },
  },
  backup: {
    summary: 'Copy the archive to FILE while serve keeps running (SQLite online backup); FILE must not exist yet.',
    settings: ['DATABASE_PATH', 'LOG_LEVEL', 'LOG_FORMAT'],
    argument: { name: 'FILE', help: 'the copy to write, e.g. backup-2026-11-27.db' },
    async run(config, _flags, logger, file) {
      if (file === undefined || file.trim() === '') throw settingError('FILE', '', 'missing', 'name the copy to write, e.g. statuswatch backup backup.db');
      const { backupArchive } = await import('./backup.ts');
      const summary = await backupArchive(config.DATABASE_PATH, file);
      process.stdout.write(`wrote ${file}: ${plural(summary.pages, 'page')}, ${summary.bytes} bytes\n`);
      logger.info('archive backed up', { database: config.DATABASE_PATH, out: file });
      return 0;
    },
  },
  'export-d1': {
    summary: "Write the archive's data as SQL for Workers' D1 (wrangler d1 execute DB --remote --file FILE).",
    settings: ['DATABASE_PATH', 'LOG_LEVEL', 'LOG_FORMAT'],
    extraFlags: { out: { type: 'string', help: 'the SQL file to write; must not exist yet (e.g. archive.sql)' } },
    async run(config, flags, logger) {
      const out = flags.out;
      if (typeof out !== 'string' || out.trim() === '')
        throw settingError('--out', String(out ?? ''), 'missing', 'name the SQL file to write, e.g. --out archive.sql');
      const { exportArchiveForD1 } = await import('./export-d1.ts');
      const summary = exportArchiveForD1(config.DATABASE_PATH, out);
      for (const table of summary.tables) process.stdout.write(`  ${table.name.padEnd(22)} ${table.rows} row(s)\n`);
      process.stdout.write(`wrote ${out}: ${plural(summary.statements, 'statement')}, ${summary.bytes} bytes\n`);
      logger.info('archive exported for D1', { database: config.DATABASE_PATH, out });
      return 0;
    },
  },
  demo: {
    summary: 'Start the simulated vendor, a mail catcher and statuswatch pointed at them, on a fresh demo database (./data/demo.db).',
    settings: ['PORT', 'HOST', 'LOG_LEVEL', 'LOG_FORMAT'],
    extraFlags: { 'step-seconds': { type: 'string', help: 'seconds between scenario steps (15)' } },
    async run(config, flags, logger) {
      const { runDemo } = await import('./demo.ts');
      const demo = await runDemo(config, logger, stepSecondsFlag(flags));
      stopOnSignals(logger, () => demo.close());
      return 'running';
    },
  },
  manifest: {
    summary:
      "Print the workspace app's manifest from PUBLIC_URL (JSON, or YAML with --yaml), or --check FILE against the spec (exit 1 on errors, 0 with warnings only; --json for tools).",
    settings: ['PUBLIC_URL'],
    extraFlags: {
      yaml: { type: 'boolean', help: 'print YAML instead of JSON' },
      check: {
        type: 'string',
        help: 'check this manifest file (JSON or YAML): errors, then warnings, each as "error: path: message" or "warning: path: message"; exit 1 only for errors',
      },
      json: { type: 'boolean', help: 'with --check: print the errors and warnings as JSON (without: the manifest as JSON, the default)' },
    },
    async run(config, flags, _logger, _argument, out) {
      const { checkManifestFile, printManifest } = await import('./manifest-command.ts');
      if (flags.check === undefined) {
        if (flags.json && flags.yaml) throw new ConfigError('--json and --yaml ask for two formats at once. Fix: give one of them');
        return printManifest(config, flags.yaml ? 'yaml' : 'json', out);
      }
      if (flags.yaml) throw new ConfigError('--yaml is for printing the manifest; --check reads JSON and YAML alike. Fix: leave out --yaml');
      return checkManifestFile(String(flags.check), flags.json ? 'json' : 'text', out);
    },
  },
};

/** A port flag, `fallback` when absent; anything but a whole number from 0 to 65535 is refused. */
function portFlag(flags: Record<string, string | boolean | undefined>, name: string, fallback: number): number {
  const raw = flags[name];
  const port = raw === undefined ? fallback : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw settingError(`--${name}`, String(raw), 'not a port number', `give a whole number from 0 to 65535, e.g. --${name} ${fallback}`);
  return port;
}

/** --step-seconds: a number of seconds, 15 when absent; "abc" or "-1" is refused, not read as 0. */
function stepSecondsFlag(flags: Record<string, string | boolean | undefined>): number {
  const raw = flags['step-seconds'];
  if (raw === undefined) return 15;
  const seconds = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(seconds) || seconds < 0)
    throw settingError('--step-seconds', String(raw), 'not a number of seconds', 'give a number such as --step-seconds 15');
  return seconds;
}

function describeEvent(event: StatusEvent): string {
  const d = event.data;
  const head = `  ${event.type.padEnd(24)} ${event.incidentId}${event.backfill ? ' (backfill)' : ''}`;
  switch (d.type) {
    case 'incident.created':
      return `${head} [${d.incident.type}/${d.incident.status}] ${d.incident.title}`;
    case 'incident.status_changed':
      return `${head} ${d.from} -> ${d.to}: ${d.incident.title}`;
    case 'incident.updated':
      return `${head} ${Object.keys(d.changes).join(', ')} changed`;
    case 'monitor.blind':
      return `${head} the feed has not been read since ${d.since ?? 'ever'}: ${d.last_error}`;
    case 'monitor.recovered':
      return `${head} the feed is read again (unread since ${d.since ?? 'ever'})`;
    case 'component.status_changed':
      return `${head} ${d.source.name}: ${d.component.name} ${d.from} -> ${d.to}`;
    case 'incident.note_added':
    case 'incident.note_edited':
      return `${head} note ${d.note.date_created}`;
  }
}

function stopOnSignals(logger: Logger, close: () => Promise<unknown>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1); // a second Ctrl-C means now
    stopping = true;
    logger.info('stopping', { signal });
    // close() bounds its own waits; this is the limit should stopping itself hang.
    setTimeout(() => {
      logger.error('could not stop in time; exiting anyway', { limitMs: SHUTDOWN_LIMIT_MS });
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    close().then(
      () => process.exit(0),
      (error) => {
        logger.error('error while stopping', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(9)} ${c.summary}`);
  return `statuswatch: a self-hosted monitor and archive of a vendor's public status feed\n\nUsage: statuswatch <command> [--flags]\n\nCommands:\n${lines.join('\n')}\n\nRun "statuswatch <command> --help" for its settings.\n`;
}

function commandHelp(name: string, command: Command): string {
  const rows = [
    ...(command.argument ? [[command.argument.name, command.argument.help] as const] : []),
    ...command.settings.map((key) => [`--${flagName(key)}`, `${key}: ${SETTING_HELP[key]}`] as const),
    ...Object.entries(command.extraFlags ?? {}).map(([flag, f]) => [`--${flag}`, f.help] as const),
    ['--help', 'show this help'] as const,
  ];
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return `statuswatch ${name}${command.argument ? ` ${command.argument.name}` : ''}: ${command.summary}\n\nEach setting is read from the environment variable named, or from its flag (flags win).\n\n${rows
    .map(([flag, help]) => `  ${flag.padEnd(width)}${help}`)
    .join('\n')}\n`;
}

/** What a command line runs with: the settings' environment and where its output goes. */
export type CommandLineIo = { env: Record<string, string | undefined>; out: CommandOutput };

/**
 * Runs one command line to its exit code ('running' for a server that stays up). A failure is
 * thrown; `commandFailure` says what to print and the exit code. cli-process.ts runs it as the
 * process; tests run commands that print and exit (manifest) in-process, without a process start.
 */
export async function runCommandLine(argv: string[], io: CommandLineIo): Promise<number | 'running'> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out.stdout(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.out.stderr(`statuswatch: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const key of command.settings) options[flagName(key)] = { type: 'string' };
  for (const [flag, f] of Object.entries(command.extraFlags ?? {})) options[flag] = { type: f.type };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: rest, options, strict: true, allowPositionals: command.argument !== undefined }));
    if (positionals.length > 1) throw new Error(`one ${command.argument?.name} at most, got ${positionals.length}: ${positionals.join(' ')}`);
  } catch (error) {
    io.out.stderr(`statuswatch ${name}: ${error instanceof Error ? error.message : String(error)}\n\n${commandHelp(name, command)}`);
    return 2;
  }
  if (values.help) {
    io.out.stdout(commandHelp(name, command));
    return 0;
  }
  const source: Record<string, string | undefined> = { ...io.env };
  for (const key of command.settings) {
    const flag = values[flagName(key)];
    if (typeof flag === 'string') source[key] = flag;
  }
  const config = parseConfig(source);
  const logger = createConsoleLogger({
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT ?? (process.stderr.isTTY ? 'pretty' : 'json'),
  });
  return command.run(config, values, logger, positionals[0], io.out);
}

/** What a failed command prints (a settings error as its one line, anything else with its stack) and its exit code. */
export function commandFailure(error: unknown): { message: string; code: 1 | 2 } {
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { message: `statuswatch: ${message}\n`, code: error instanceof ConfigError ? 2 : 1 };
}
