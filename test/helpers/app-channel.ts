/** The workspace app's side of a test on Node: the simulated Web API in this process, and the world on it (app-channel-world.ts). */
import { startSimulatedWebApi } from '../../src/sim/web-api/server.ts';
import { appWorldOn, type AppWorld } from './app-channel-world.ts';

export { installApp, readable, subscribeApp, type AppWorld, type ChannelView, type SimMessage } from './app-channel-world.ts';

export async function startAppWorld(channelNames: string[] = ['status', 'ops']): Promise<AppWorld> {
  return appWorldOn(await startSimulatedWebApi(), channelNames);
}
