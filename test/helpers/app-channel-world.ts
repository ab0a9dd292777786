/**
 * The workspace app's side of a test, on either runtime (app-channel.ts starts it on Node, the
 * Workers harness through the fixture factory): the simulated Web API with a workspace and its channels, an
 * installation made through our API, app subscriptions, and a channel read back as a reader sees
 * it (roots and their threads), from the sim's control API.
 */
import { expect } from 'vitest';

export type SimMessage = {
  ts: string;
  userId: string;
  botId: string | null;
  text: string;
  blocks: unknown[] | null;
  threadTs: string | null;
  editCount: number;
};

/** A channel as a reader sees it: root messages, each with its replies oldest first. */
export type ChannelView = { roots: (SimMessage & { replies: SimMessage[] })[] };

export type AppWorld = {
  url: string;
  clientId: string;
  clientSecret: string;
  teamId: string;
  /** A long-lived bot token the admin pastes (POST /api/app/installations). */
  token: string;
  /** Channel ids by name. */
  channels: Record<string, string>;
  /** The service settings that point the app at this sim. */
  env: Record<string, string>;
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Another long-lived bot token of the same workspace: what a re-install pastes. */
  newToken(): Promise<string>;
  read(channelId: string): Promise<ChannelView>;
  close(): Promise<void>;
};

/** The world on a running simulated Web API: a workspace with these channels, read and driven over HTTP. */
export async function appWorldOn(sim: { url: string; close(): Promise<void> }, channelNames: string[], workspaceName = 'Acme'): Promise<AppWorld> {
  const control: AppWorld['control'] = async (method, path, body) => {
    const res = await fetch(`${sim.url}/_sim${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const state = (await control('GET', '/state')).body as { app: { clientId: string; clientSecret: string } };
  const created = await control('POST', '/workspaces', { name: workspaceName, channels: channelNames.map((name) => ({ name })) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const workspace = created.body.workspace as { teamId: string; channels: { id: string; name: string }[] };
  return {
    url: sim.url,
    clientId: state.app.clientId,
    clientSecret: state.app.clientSecret,
    teamId: workspace.teamId,
    token: created.body.token as string,
    channels: Object.fromEntries(workspace.channels.map((c) => [c.name, c.id])),
    env: { APP_API_URL: sim.url, APP_CLIENT_ID: state.app.clientId, APP_CLIENT_SECRET: state.app.clientSecret },
    control,
    async newToken() {
      const res = await control('POST', `/workspaces/${workspace.teamId}/tokens`, { type: 'bot' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.token as string;
    },
    async read(channelId) {
      const res = await control('GET', `/channels/${channelId}`);
      expect(res.status).toBe(200);
      const messages = res.body.messages as SimMessage[];
      const roots = messages.filter((m) => m.threadTs === null || m.threadTs === m.ts);
      return { roots: roots.map((root) => ({ ...root, replies: messages.filter((m) => m.threadTs === root.ts && m.ts !== root.ts) })) };
    },
    close: () => sim.close(),
  };
}

type Admin = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** Installs the app from the world's long-lived token; the installation's id. */
export async function installApp(admin: Admin, world: AppWorld, token = world.token): Promise<string> {
  const res = await admin('POST', '/api/app/installations', { token });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.installation.id as string;
}

/** An app subscription to one channel of the world; its id. */
export async function subscribeApp(admin: Admin, installation: string, conversation: string, filters?: object): Promise<string> {
  const res = await admin('POST', '/api/subscriptions', { channel: 'app', installation, conversation, ...(filters ? { filters } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription.id as string;
}

/** Every text of a message's blocks and its fallback, joined: what a reader can read in it. */
export function readable(message: SimMessage): string {
  return [message.text, JSON.stringify(message.blocks ?? [])].join('\n');
}
