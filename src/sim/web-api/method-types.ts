/** What a Web API method handler is given and declares: how it authenticates, which scope it needs, what it does. */
import type { CallParams } from './request-params.ts';
import type { WebApiState } from './state.ts';
import type { AccessToken } from './tokens.ts';
import type { Workspace } from './workspaces.ts';

export type OkBody = { ok: true } & Record<string, unknown>;

export type CallContext = {
  state: WebApiState;
  params: CallParams;
  method: string;
  nowMs: number;
  /** The sim's own origin, for URLs in answers. */
  origin: string;
};

export type TokenCallContext = CallContext & { token: AccessToken; workspace: Workspace };

export type MethodSpec =
  | {
      /** The app's client credentials (oauth.*): no access token. */
      auth: 'client';
      /** The vendor takes these form-encoded only (spec: "Token rotation (Web API, form-encoded)"). */
      formOnly: boolean;
      run(ctx: CallContext): OkBody;
    }
  | {
      auth: 'token';
      /** The scope the call needs, given its arguments; null when none. */
      scope(ctx: TokenCallContext): string | null;
      run(ctx: TokenCallContext): OkBody;
    };
