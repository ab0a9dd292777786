/** The workspace app's side of a test on Node: the simulated Web API in this process, and the world on it (app-channel-world.ts). */
import { startSimulatedWebApi } from '../../src/sim/web-api/server.ts';
import { appWorldOn, type AppWorld } from './app-channel-world.ts';
import { spawnServe } from './serve-process.ts';

export { installApp, readable, subscribeApp, type AppWorld, type ChannelView, type SimMessage } from './app-channel-world.ts';

export async function startAppWorld(channelNames: string[] = ['status', 'ops'], workspaceName?: string): Promise<AppWorld> {
  return appWorldOn(await startSimulatedWebApi(), channelNames, workspaceName);
}

/** Installs the app and subscribes the named conversations through a short-lived serve, as an admin would. */
export async function subscribeAppByServe(env: Record<string, string>, world: AppWorld, channelNames: string[]): Promise<void> {
  const setup = await spawnServe({ ...env, POLL_ON_START: 'false', POLL_SCHEDULE: '0 0 1 1 *' }).started;
  try {
    const installed = await setup.admin('POST', '/api/app/installations', { token: world.token });
    for (const name of channelNames) {
      const created = await setup.admin('POST', '/api/subscriptions', {
        channel: 'app',
        installation: installed.installation.id,
        conversation: world.channels[name],
      });
      if (!created.ok) throw new Error(`could not subscribe ${name}: ${JSON.stringify(created)}`);
    }
  } finally {
    await setup.kill('SIGTERM');
  }
}
