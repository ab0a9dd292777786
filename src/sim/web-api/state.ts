/** Everything the simulated Web API holds: the app, workspaces, tokens, channels, rules a test set, faults, the call log, the clock. */
import { createHeldRequests, type HeldRequests } from '../held-requests.ts';
import { createCallLog, type CallLog } from './call-log.ts';
import { createChannelBook, type ChannelBook } from './channels.ts';
import { createWebApiFaultBook, type WebApiFaultBook } from './faults.ts';
import { createRateLimits, type RateLimits } from './rate-limits.ts';
import { defaultSettings, newSimApp, type SimApp, type WebApiSettings } from './settings.ts';
import { createTokenBook, type TokenBook } from './tokens.ts';
import { createWorkspaceBook, type WorkspaceBook } from './workspaces.ts';

export type SimulatedWebApiOptions = {
  app?: Partial<SimApp>;
  settings?: Partial<WebApiSettings>;
  /** Default Date.now; the control API can also fix "now". */
  clock?: () => number;
};

export type WebApiState = {
  app: SimApp;
  settings: WebApiSettings;
  readonly workspaces: WorkspaceBook;
  readonly tokens: TokenBook;
  readonly channels: ChannelBook;
  readonly faults: WebApiFaultBook;
  readonly rateLimits: RateLimits;
  readonly calls: CallLog;
  readonly held: HeldRequests;
  now(): number;
  /** A fixed "now", or null to return to the configured clock. */
  setClock(nowMs: number | null): void;
  readonly clockFixed: boolean;
};

export function createWebApiState(options: SimulatedWebApiOptions = {}): WebApiState {
  const baseClock = options.clock ?? Date.now;
  let fixedNowMs: number | null = null;
  const workspaces = createWorkspaceBook();
  return {
    app: newSimApp(options.app),
    settings: { ...defaultSettings(), ...options.settings },
    workspaces,
    tokens: createTokenBook(workspaces),
    channels: createChannelBook(),
    faults: createWebApiFaultBook(),
    rateLimits: createRateLimits(),
    calls: createCallLog(),
    held: createHeldRequests(),
    now: () => fixedNowMs ?? baseClock(),
    setClock(nowMs) {
      fixedNowMs = nowMs;
    },
    get clockFixed() {
      return fixedNowMs !== null;
    },
  };
}
