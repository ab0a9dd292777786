/**
 * The demo's and the tests' PagerDuty and Opsgenie: one HTTP receiver on loopback that answers the
 * Events API v2 (`POST /pagerduty/v2/enqueue`) and the Alert API (`/opsgenie/v2/alerts...`) as the
 * tools document, keeps the alerts (tools.ts) and a bounded log of the calls, and shows both on
 * a page. Point PAGERDUTY_EVENTS_URL at `pagerDutyUrl` and OPSGENIE_API_URL at `opsgenieUrl`.
 */
import { readBoundedBody } from '../bounded-body.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reloadOf, sendCatcherPage, sendNotFound } from '../catcher-page.ts';
import { keptList } from '../kept-list.ts';
import { type CaughtCall, renderOnCallPage } from './page.ts';
import { createOnCallTools, type OnCallTools, type OnCallToolsLimits, type ToolAnswer } from './tools.ts';

export type OnCallReceiverOptions = Partial<OnCallToolsLimits> & {
  /** Default 127.0.0.1: the page shows every call. */
  host?: string;
  /** Calls kept in the log (default 500), and their bodies together at most (default 2 MB). */
  maxCalls?: number;
  maxTotalBytes?: number;
  /** A larger body is refused with 413 and not kept (default 600 kB: PagerDuty takes at most 512 kB). */
  maxBodyBytes?: number;
  /** Holds each answer back this long (ms): widens the window a crash test's kill can land in. */
  answerDelayMs?: () => number;
};

/** `body`: what the tool answers instead of its own words for `status` (a tool that says something odd). */
export type OnCallFault = { status: number; retryAfterSeconds?: number; times?: number; body?: unknown };
export type OnCallToolName = 'pagerduty' | 'opsgenie';

export type RunningOnCallReceiver = OnCallTools & {
  /** PAGERDUTY_EVENTS_URL. */
  pagerDutyUrl: string;
  /** OPSGENIE_API_URL. */
  opsgenieUrl: string;
  pageUrl: string;
  /** The next `times` calls to a tool answer `status` (with Retry-After when given), as a busy or failing tool would. */
  failNext(tool: OnCallToolName, fault: OnCallFault): void;
  /** Oldest first. */
  calls(): readonly CaughtCall[];
  close(): Promise<void>;
};

const REQUEST_TIMEOUT_MS = 10_000;

export async function startOnCallReceiver(options: OnCallReceiverOptions = {}): Promise<RunningOnCallReceiver> {
  const { host = '127.0.0.1', maxCalls = 500, maxTotalBytes = 2_000_000, maxBodyBytes = 600_000 } = options;
  const tools = createOnCallTools(options);
  const log = keptList<CaughtCall>({ maxItems: maxCalls, maxBytes: maxTotalBytes });
  const faults: Record<OnCallToolName, (OnCallFault & { times: number }) | null> = { pagerduty: null, opsgenie: null };

  function injected(tool: OnCallToolName): ToolAnswer | null {
    const fault = faults[tool];
    if (!fault || fault.times <= 0) return null;
    fault.times -= 1;
    const headers: Record<string, string> = fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
    const body =
      tool === 'pagerduty'
        ? { status: 'throttle event', message: 'Requests for this service are arriving too quickly.  Please retry later.' }
        : { message: 'You are making too many requests! To avoid errors, we recommend you limit requests.', took: 0.0, requestId: 'sim-fault' };
    return { status: fault.status, body: fault.body ?? (fault.status === 429 ? body : { message: 'Internal Server Error' }), headers };
  }

  function route(method: string, path: string, authorization: string, body: unknown): { tool: OnCallToolName; answer: ToolAnswer } | null {
    if (method !== 'POST') return null;
    if (path === '/pagerduty/v2/enqueue') return { tool: 'pagerduty', answer: injected('pagerduty') ?? tools.pagerDutyEvent(body) };
    if (path === '/opsgenie/v2/alerts')
      return { tool: 'opsgenie', answer: injected('opsgenie') ?? tools.opsgenieCall(authorization, { kind: 'create' }, body) };
    const match = /^\/opsgenie\/v2\/alerts\/([^/]+)\/(notes|close)$/.exec(path);
    if (!match) return null;
    const alias = decodeURIComponent(match[1]!);
    const kind = match[2] === 'notes' ? 'note' : 'close';
    return { tool: 'opsgenie', answer: injected('opsgenie') ?? tools.opsgenieCall(authorization, { kind, alias }, body) };
  }

  const server = createServer((req, res) => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    if (req.method === 'GET' && path === '/') {
      sendCatcherPage(
        res,
        renderOnCallPage({
          calls: log.items(),
          pagerDuty: tools.pagerDutyAlerts(),
          opsgenie: tools.opsgenieAlerts(),
          maxCalls,
          maxTotalBytes,
          reload: reloadOf(req.url ?? '/'),
        }),
      );
      return;
    }
    readBoundedBody(req, maxBodyBytes).then(
      (text) => {
        if (text === null) return void res.writeHead(413, { connection: 'close' }).end();
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          // answered as the tool answers a body that is no event
        }
        const routed = route(req.method ?? 'GET', path, String(req.headers.authorization ?? ''), body);
        if (!routed) return sendNotFound(res);
        const { tool, answer } = routed;
        const shown = redactKeys(text);
        log.add({ at: Date.now(), tool, path: query ? `${path}?${query}` : path, status: answer.status, body: shown }, Buffer.byteLength(shown) + path.length);
        const answerNow = () => res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
        const delayMs = options.answerDelayMs?.() ?? 0;
        if (delayMs > 0) setTimeout(answerNow, delayMs);
        else answerNow();
      },
      () => res.destroy(),
    );
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  return {
    ...tools,
    pagerDutyUrl: `${origin}/pagerduty/v2/enqueue`,
    opsgenieUrl: `${origin}/opsgenie`,
    pageUrl: `${origin}/`,
    failNext(tool, fault) {
      faults[tool] = { ...fault, times: fault.times ?? 1 };
    },
    calls: () => log.items(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The page and the log never show a routing key: a viewer of the demo is not its owner. */
function redactKeys(text: string): string {
  return text.replace(/("routing_key"\s*:\s*")[^"]*(")/g, '$1…$2');
}
