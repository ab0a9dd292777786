/** The simulated PagerDuty and Opsgenie: they answer as the tools document, fail on demand, and keep bounded alerts and logs whatever is sent. */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningOnCallReceiver, startOnCallReceiver } from '../../src/sim/oncall/receiver.ts';

const ROUTING_KEY = 'R0UTINGKEY0123456789abcdefABCDEF';
const API_KEY = '0b5c6a3e-1f2d-4c8b-9a7e-5d4c3b2a1f00';

describe('simulated on-call tools', () => {
  let tools: RunningOnCallReceiver;
  afterEach(async () => {
    await tools.close();
  });

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const trigger = (dedupKey: string, summary = 'Files down') => ({
    routing_key: ROUTING_KEY,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: { summary, source: 'example.test', severity: 'error' },
  });

  it("answers PagerDuty's documented bodies: 202 with the dedup_key, 400 for an invalid routing key or a summary over 1024 characters", async () => {
    tools = await startOnCallReceiver();
    tools.addPagerDutyKey(ROUTING_KEY);
    const ok = await post(tools.pagerDutyUrl, trigger('k1'));
    expect(ok.status).toBe(202);
    expect(await ok.json()).toEqual({ status: 'success', message: 'Event processed', dedup_key: 'k1' });
    const badKey = await post(tools.pagerDutyUrl, { ...trigger('k1'), routing_key: 'nope' });
    expect(badKey.status).toBe(400);
    expect(await badKey.json()).toEqual({ status: 'invalid event', message: 'Event object is invalid', errors: ['Invalid routing key'] });
    expect((await post(tools.pagerDutyUrl, trigger('k2', 'x'.repeat(1025)))).status).toBe(400);
    // The page never shows a routing key.
    expect(await (await fetch(tools.pageUrl)).text()).not.toContain(ROUTING_KEY);
  });

  it("answers Opsgenie's: 202 with a requestId, 422 for a key of the wrong shape, 401 for an unknown one, 422 for a message over 130", async () => {
    tools = await startOnCallReceiver();
    tools.addOpsgenieKey(API_KEY);
    const alerts = `${tools.opsgenieUrl}/v2/alerts`;
    const ok = await post(alerts, { message: 'Files down', alias: 'a' }, { authorization: `GenieKey ${API_KEY}` });
    expect(ok.status).toBe(202);
    expect(await ok.json()).toMatchObject({ result: 'Request will be processed', requestId: expect.any(String) });
    expect((await post(alerts, { message: 'm' }, { authorization: 'GenieKey short' })).status).toBe(422);
    const unknown = await post(alerts, { message: 'm' }, { authorization: 'GenieKey 11111111-2222-4333-8444-555555555555' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ message: 'Could not authenticate' });
    expect((await post(alerts, { message: 'x'.repeat(131) }, { authorization: `GenieKey ${API_KEY}` })).status).toBe(422);
  });

  it('answers 429 with Retry-After on demand, then as before', async () => {
    tools = await startOnCallReceiver();
    tools.addPagerDutyKey(ROUTING_KEY);
    tools.failNext('pagerduty', { status: 429, retryAfterSeconds: 7 });
    const busy = await post(tools.pagerDutyUrl, trigger('k'));
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('7');
    expect((await post(tools.pagerDutyUrl, trigger('k'))).status).toBe(202);
  });

  it('keeps at most maxAlerts alerts, maxCalls calls and maxNotesPerAlert notes, the newest', async () => {
    tools = await startOnCallReceiver({ maxAlerts: 3, maxCalls: 5, maxNotesPerAlert: 2 });
    tools.addPagerDutyKey(ROUTING_KEY);
    tools.addOpsgenieKey(API_KEY);
    for (let i = 0; i < 10; i++) await post(tools.pagerDutyUrl, trigger(`k${i}`));
    expect(tools.pagerDutyAlerts().map((a) => a.dedupKey)).toEqual(['k7', 'k8', 'k9']);
    expect(tools.calls()).toHaveLength(5);
    const auth = { authorization: `GenieKey ${API_KEY}` };
    await post(`${tools.opsgenieUrl}/v2/alerts`, { message: 'm', alias: 'a' }, auth);
    for (let i = 0; i < 5; i++) await post(`${tools.opsgenieUrl}/v2/alerts/a/notes?identifierType=alias`, { note: `n${i}` }, auth);
    expect(tools.opsgenieAlerts().find((a) => a.alias === 'a')!.notes).toEqual(['n3', 'n4']);
  });
});
