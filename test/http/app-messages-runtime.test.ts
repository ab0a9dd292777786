/**
 * The workspace app's messages through the service's app, on whichever runtime runs it: Node
 * (better-sqlite3, Node's fetch) and, in the workers project, workerd (D1, workerd's fetch, which
 * refuses `redirect: 'error'`), against the simulated Web API over loopback, the archive seeded
 * with each step of the story (seed-archive.ts). One incident posts one root, its resolution edits
 * it and replies in its thread. (A redirect from the API host is refused, never followed:
 * test/adapters/web-api-client.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appStory } from '../fixtures/app-story.ts';
import { installApp, readable, startAppWorld, subscribeApp, type AppWorld } from '../helpers/app-channel.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

describe('app messages on this runtime', () => {
  let world: AppWorld;
  let service: TestApp;

  beforeEach(async () => {
    world = await startAppWorld(['status']);
    service = await startTestApp(NO_FEED_URL, { env: { ...world.env, PUBLIC_URL: 'https://status.example.test' } });
    expect((await seedArchive(service.store, [])).outcome).toBe('ok');
  });
  afterEach(async () => {
    await service.close();
    await world.close();
  });

  it('posts one root per incident, edits it to the final state and threads the changes', async () => {
    const { steps, replies, finalTitle, finalNote } = appStory(1800);
    const installation = await installApp(service.admin, world);
    await subscribeApp(service.admin, installation, world.channels.status!);
    for (const incident of steps) {
      expect((await seedArchive(service.store, [incident])).outcome).toBe('ok');
      await service.deliverNow();
    }
    const view = await world.read(world.channels.status!);
    expect(view.roots).toHaveLength(1);
    expect(readable(view.roots[0]!)).toContain(`Resolved: ${finalTitle}`);
    expect(readable(view.roots[0]!)).toContain(finalNote);
    expect(view.roots[0]!.replies).toHaveLength(replies.length);
    const deliveries = (await service.admin('GET', '/api/deliveries')).body.deliveries as { state: string; attempts: number }[];
    expect(deliveries.map((d) => [d.state, d.attempts])).toEqual(steps.map(() => ['done', 1]));
  });
});
