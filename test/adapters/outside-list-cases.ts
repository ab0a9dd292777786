/**
 * Every list read from outside, with one record of several malformed: the Web API's
 * conversations.list, conversations.history and conversations.replies, and the SCIM directory's
 * groups. The others are used and the bad one is named as skipped, with its reason
 * (core/outside-records.ts); a page whose envelope is malformed still fails as a whole. One suite,
 * run on Node (outside-lists.test.ts) and inside workerd (test/workers/outside-lists.test.ts), each
 * against the simulators over loopback, the bad record injected as the simulator's `body` fault: the
 * simulator's own answer with one record changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScimClient } from '../../src/adapters/fetch-scim-client.ts';
import { createWebApiClient } from '../../src/adapters/web-api-client.ts';
import type { RecordSkip } from '../../src/core/outside-records.ts';
import type { AppWorld } from '../helpers/app-channel-world.ts';
import { control } from '../sim/scim-control.ts';

export type OutsideListsParts = {
  /** The simulated Web API with a workspace of these channels, the app installed. */
  startAppWorld(channelNames: string[]): Promise<AppWorld>;
  /** The simulated SCIM directory, empty. */
  startScim(): Promise<{ url: string; token: string }>;
};

/** A Web API call as the vendor's spec writes it, the answer's JSON as the simulator gives it. */
async function callWebApi(world: AppWorld, method: string, fields: Record<string, string>): Promise<any> {
  const res = await fetch(`${world.url}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${world.token}` },
    body: new URLSearchParams(fields).toString(),
  });
  const body: any = await res.json();
  expect(body.ok, JSON.stringify(body)).toBe(true);
  return body;
}

/** The next call of `method` answers `body` (the simulator's answer, changed by the test). */
async function answerOnce(world: AppWorld, method: string, body: unknown): Promise<void> {
  const res = await world.control('POST', '/faults', { method, kind: 'body', body: JSON.stringify(body), times: 1 });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

export function describeOutsideLists(name: string, parts: OutsideListsParts): void {
  describe(name, () => {
    const worlds: AppWorld[] = [];
    afterEach(async () => {
      await Promise.all(worlds.splice(0).map((w) => w.close()));
    });
    async function appWorld(channelNames: string[]) {
      const world = await parts.startAppWorld(channelNames);
      worlds.push(world);
      const api = createWebApiClient({ baseUrl: world.url, clientId: world.clientId, clientSecret: world.clientSecret });
      return { world, api };
    }

    it('conversations.list: a malformed conversation is skipped by its id with the reason, the others listed', async () => {
      const { world, api } = await appWorld(['status', 'ops', 'alerts']);
      const fields = { types: 'public_channel,private_channel', exclude_archived: 'true', limit: '200' };
      const answer = await callWebApi(world, 'conversations.list', fields);
      expect(answer.channels).toHaveLength(3);
      answer.channels[1].is_private = 'yes';
      await answerOnce(world, 'conversations.list', answer);
      const page = await api.listConversations(world.token, { cursor: null, limit: 200 });
      expect(page.conversations.map((c) => c.id)).toEqual([world.channels.status, world.channels.alerts]);
      expect(page.skipped).toEqual([{ id: world.channels.ops, reason: 'is_private: Invalid input: expected boolean, received string' }]);

      // The envelope is the page's: a list that is no list fails the page, and says where.
      await answerOnce(world, 'conversations.list', { ...answer, channels: 'many' });
      await expect(api.listConversations(world.token, { cursor: null, limit: 200 })).rejects.toMatchObject({
        code: 'malformed',
        message: 'conversations.list: malformed (channels: Invalid input: expected array, received string)',
      });
    });

    /** A channel with three root messages the app posted; their ts, oldest first. */
    async function postedChannel() {
      const { world, api } = await appWorld(['status']);
      const channel = world.channels.status!;
      const post = (text: string, threadTs?: string) => api.postMessage(world.token, channel, { text, blocks: [], ...(threadTs ? { threadTs } : {}) });
      const roots = [await post('one'), await post('two'), await post('three')].map((m) => m.ts);
      return { world, api, channel, post, roots };
    }

    it('conversations.history: a malformed message is skipped by its ts with the reason, the others read', async () => {
      const { world, api, channel, roots } = await postedChannel();
      const history = await callWebApi(world, 'conversations.history', { channel, limit: '200', include_all_metadata: 'true' });
      expect(history.messages.map((m: { ts: string }) => m.ts)).toEqual([...roots].reverse());
      // Its metadata is what the app reads (a field it ignores, such as thread_ts, may be anything).
      history.messages[1].metadata = { event_type: 1234, event_payload: {} };
      await answerOnce(world, 'conversations.history', history);
      const page = await api.history(world.token, channel, { cursor: null, limit: 200 });
      expect(page.messages.map((m) => m.ts)).toEqual([roots[2], roots[0]]);
      expect(page.skipped).toEqual([{ id: roots[1], reason: 'metadata.event_type: Invalid input: expected string, received number' }]);

      // A cursor of the wrong type is the page's: it fails as a whole.
      await answerOnce(world, 'conversations.history', { ...history, response_metadata: { next_cursor: 42 } });
      await expect(api.history(world.token, channel, { cursor: null, limit: 200 })).rejects.toMatchObject({
        code: 'malformed',
        message: 'conversations.history: malformed (response_metadata.next_cursor: Invalid input: expected string, received number)',
      });
    });

    it('conversations.replies: a malformed reply is skipped by its ts with the reason, the others read', async () => {
      const { world, api, channel, post, roots } = await postedChannel();
      const root = roots[0]!;
      const replies = [await post('a', root), await post('b', root), await post('c', root)].map((m) => m.ts);
      const thread = await callWebApi(world, 'conversations.replies', { channel, ts: root, limit: '200', include_all_metadata: 'true' });
      expect(thread.messages.map((m: { ts: string }) => m.ts)).toEqual([root, ...replies]);
      thread.messages[2].metadata = { event_type: 'x'.repeat(500), event_payload: {} };
      await answerOnce(world, 'conversations.replies', thread);
      const page = await api.replies(world.token, channel, root, { cursor: null, limit: 200 });
      expect(page.messages.map((m) => m.ts)).toEqual([root, replies[0], replies[2]]);
      expect(page.skipped).toEqual([{ id: replies[1], reason: 'metadata.event_type: Too big: expected string to have <=200 characters' }]);
    });

    it('SCIM groups: a malformed group is skipped by its id with the reason, the others found by name', async () => {
      const sim = await parts.startScim();
      const seed = await control(sim, 'POST', '/seed', {
        users: 3,
        groups: [
          { displayName: 'Ops', members: 1 },
          { displayName: 'Web', members: 2 },
          { displayName: 'Data', members: 1 },
        ],
      });
      const ids = seed.groups.map((g: { id: string }) => g.id) as string[];
      const client = createScimClient({ baseUrl: sim.url, token: sim.token, clock: { now: () => Date.now() } });
      const res = await fetch(`${sim.url}/scim/v2/Groups/?startIndex=1&count=1000`, { headers: { Authorization: `Bearer ${sim.token}` } });
      const list: any = await res.json();
      expect(list.Resources.map((g: { displayName: string }) => g.displayName)).toEqual(['Ops', 'Web', 'Data']);
      list.Resources[1].displayName = { text: 'Web' };
      await control(sim, 'POST', '/faults', { target: 'groups.list', kind: 'body', body: JSON.stringify(list) });

      const skipped: RecordSkip[] = [];
      const seen: string[] = [];
      const data = await client.groupByName(
        'Data',
        (n) => seen.push(n),
        (s) => skipped.push(s),
      );
      expect(data).toMatchObject({ id: ids[2], displayName: 'Data', memberIds: [expect.any(String)] });
      expect(seen).toEqual(['Ops', 'Data']);
      expect(skipped).toEqual([{ id: ids[1], reason: 'displayName: Invalid input: expected string, received object' }]);
      // The skipped group is not there to find.
      expect(await client.groupByName('Web')).toBeNull();

      // The envelope is the page's: Resources that is no list fails the listing.
      await control(sim, 'DELETE', '/faults');
      await control(sim, 'POST', '/faults', { target: 'groups.list', kind: 'body', body: JSON.stringify({ ...list, Resources: {} }) });
      await expect(client.groupByName('Data')).rejects.toMatchObject({
        code: 'malformed',
        detail: 'Resources: Invalid input: expected array, received object',
      });
    });
  });
}
