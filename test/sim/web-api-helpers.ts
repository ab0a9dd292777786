/** Helpers for the simulated Web API's tests: a running sim per test, calls as a client makes them, the control API. */
import { afterEach, expect } from 'vitest';
import { startSimulatedWebApi, type RunningSimulatedWebApi, type StartSimulatedWebApiOptions } from '../../src/sim/web-api/server.ts';

const running: RunningSimulatedWebApi[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

export type Answer = { status: number; body: Record<string, unknown>; headers: Headers };

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { unparsed: text };
  }
  return { status: response.status, body, headers: response.headers };
}

export type WebApiClient = {
  sim: RunningSimulatedWebApi;
  url: string;
  clientId: string;
  clientSecret: string;
  /** A form-encoded POST, the way the spec writes every call; `token` goes in Authorization: Bearer. */
  form(method: string, fields: Record<string, string>, token?: string): Promise<Answer>;
  /** A JSON POST with the token in Authorization: Bearer. */
  json(method: string, body: unknown, token?: string): Promise<Answer>;
  control(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Answer>;
  /** Makes a workspace with the app installed; returns its long-lived bot token and channel ids. */
  workspace(fields?: Record<string, unknown>): Promise<{ teamId: string; token: string; channels: Record<string, string>; botUserId: string }>;
  /** oauth.v2.exchange with the app's credentials. */
  exchange(token: string): Promise<Answer>;
  /** oauth.v2.access with grant_type refresh_token. */
  refresh(refreshToken: string): Promise<Answer>;
  setClock(nowMs: number): Promise<void>;
  settings(fields: Record<string, unknown>): Promise<void>;
  misuse(teamId: string): Promise<Record<string, number>>;
};

export async function startWebApi(options: StartSimulatedWebApiOptions = {}): Promise<WebApiClient> {
  const sim = await startSimulatedWebApi(options);
  running.push(sim);
  const url = sim.url;
  const control: WebApiClient['control'] = async (method, path, body) =>
    answer(
      await fetch(`${url}/_sim${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const state = (await control('GET', '/state')).body as { app: { clientId: string; clientSecret: string } };
  const client: WebApiClient = {
    sim,
    url,
    clientId: state.app.clientId,
    clientSecret: state.app.clientSecret,
    async form(method, fields, token) {
      return answer(
        await fetch(`${url}/api/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
          body: new URLSearchParams(fields).toString(),
        }),
      );
    },
    async json(method, body, token) {
      return answer(
        await fetch(`${url}/api/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json; charset=utf-8', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        }),
      );
    },
    control,
    async workspace(fields = {}) {
      const created = await control('POST', '/workspaces', { name: 'Acme', channels: [{ name: 'status' }], ...fields });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const workspace = created.body.workspace as { teamId: string; botUserId: string; channels: { id: string; name: string }[] };
      return {
        teamId: workspace.teamId,
        botUserId: workspace.botUserId,
        token: created.body.token as string,
        channels: Object.fromEntries(workspace.channels.map((c) => [c.name, c.id])),
      };
    },
    exchange: (token) => client.form('oauth.v2.exchange', { client_id: client.clientId, client_secret: client.clientSecret, token }),
    refresh: (refreshToken) =>
      client.form('oauth.v2.access', {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      }),
    async setClock(nowMs) {
      expect((await control('PUT', '/clock', { nowMs })).status).toBe(200);
    },
    async settings(fields) {
      const res = await control('PUT', '/settings', fields);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
    async misuse(teamId) {
      const res = await control('GET', `/workspaces/${teamId}`);
      const { events: _events, ...counters } = res.body.misuse as Record<string, number> & { events: unknown };
      return counters;
    },
  };
  return client;
}

/** The error code of an `{ok:false}` answer, with the status, for one-line expectations. */
export const failure = (a: Answer): [number, unknown, unknown] => [a.status, a.body.ok, a.body.error];

export const T0 = Date.parse('2026-11-23T09:00:00Z');
