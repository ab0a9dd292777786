/**
 * The Workers pool's stand-in for test/helpers/app-channel.ts: the same world, on a simulated Web
 * API the fixture factory starts on the Node side (workerd cannot listen), driven over loopback.
 */
import { appWorldOn, type AppWorld } from '../../helpers/app-channel-world.ts';
import { callFactory } from './fixture-client.ts';

export { installApp, readable, subscribeApp, type AppWorld, type ChannelView, type SimMessage } from '../../helpers/app-channel-world.ts';

export async function startAppWorld(channelNames: string[] = ['status', 'ops']): Promise<AppWorld> {
  const { id, url } = await callFactory<{ id: string; url: string }>('POST', '/web-apis', {});
  return appWorldOn({ url, close: async () => void (await callFactory('DELETE', `/web-apis/${id}`)) }, channelNames);
}
