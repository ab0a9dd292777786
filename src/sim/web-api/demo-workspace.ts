/** The workspace `statuswatch simulate --web-api` and the demo start with: one installed app, a channel for its messages. */
import type { WebApiState } from './state.ts';

export const DEMO_CHANNEL_NAME = 'status-updates';

export type DemoWorkspace = {
  teamId: string;
  channelId: string;
  /** A long-lived bot token of the installation, to try the methods with (or to exchange). */
  botToken: string;
};

export function seedDemoWorkspace(state: WebApiState): DemoWorkspace {
  const nowMs = state.now();
  const workspace = state.workspaces.add({ name: 'Demo workspace', installed: true }, nowMs);
  const channel = workspace && state.channels.add({ teamId: workspace.teamId, name: DEMO_CHANNEL_NAME }, nowMs);
  if (!workspace || !channel) throw new Error('a new simulated Web API refused its demo workspace');
  state.channels.add({ teamId: workspace.teamId, name: 'general' }, nowMs);
  return { teamId: workspace.teamId, channelId: channel.id, botToken: state.tokens.issueLongLived(workspace, 'bot', workspace.botUserId, nowMs).value };
}
