import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../src/core/events.ts';
import { matchesFilters, planDeliveries, webhookMessageId } from '../../src/core/fanout.ts';
import { componentEvents } from '../../src/core/statuspage/component-events.ts';
import { groupForMessages } from '../../src/core/notification-message.ts';
import { createSubscriptionSchema, type Subscription, type SubscriptionFilters } from '../../src/core/subscription.ts';
import { filesIncidentResolved, pollEvents, rawIncident } from '../fixtures/vendor-builders.ts';

function subscription(overrides: Partial<Subscription> = {}): Subscription {
  return { id: 'sub_1', channel: 'webhook', target: 'https://hooks.example.com/in', filters: {}, timeZone: 'UTC', status: 'active', ...overrides };
}

const FINAL_NOTE = { body: '<p>Files upload normally again.</p>', date_created: '2026-10-01T07:10:00-07:00' };
const { active: filesActive, resolved: filesResolved } = filesIncidentResolved(FINAL_NOTE.body);
const huddlesNew = rawIncident({
  id: 1581,
  title: 'Huddles drop',
  type: 'outage',
  services: ['Huddles'],
  date_created: '2026-10-01T06:30:00-07:00',
  date_updated: '2026-10-01T06:30:00-07:00',
  notes: [{ body: '<p>Huddles disconnect.</p>', date_created: '2026-10-01T06:30:00-07:00' }],
});

/** One poll: 1581 appears (one event), then 1580 resolves with its final note (two events). */
const twoIncidents = () => pollEvents([filesResolved, huddlesNew], [filesActive]);

function eventOf(events: StatusEvent[], type: StatusEvent['type']): StatusEvent {
  const event = events.find((e) => e.type === type);
  if (!event) throw new Error(`no ${type} among ${events.map((e) => e.type).join(', ')}`);
  return event;
}

describe('matchesFilters', () => {
  const [created] = pollEvents([rawIncident({ type: 'outage', services: ['Messaging', 'Login/SSO'] })]);
  const event = created!;
  const matches = (filters: SubscriptionFilters) => matchesFilters(filters, event);

  it('lets everything through when no list is set or every list is empty', () => {
    expect(matches({})).toBe(true);
    expect(matches({ services: [], types: [], events: [] })).toBe(true);
  });

  it('matches services that the incident names, by exact name', () => {
    expect(matches({ services: ['Files', 'Login/SSO'] })).toBe(true);
    expect(matches({ services: ['Files'] })).toBe(false);
    // The vendor's names are matched as written: "messaging" is not theirs.
    expect(matches({ services: ['messaging'] })).toBe(false);
  });

  it('matches every service filter when the incident names no services (platform-wide)', () => {
    const [wide] = pollEvents([rawIncident({ services: [] })]);
    expect(matchesFilters({ services: ['Files'] }, wide!)).toBe(true);
    expect(matchesFilters({ services: ['Huddles'], events: ['incident.note_added'] }, wide!)).toBe(false);
  });

  it('matches a services change by the old services as well as the new ones', () => {
    const before = rawIncident({ services: ['Files'] });
    const after = rawIncident({ services: ['Messaging'], date_updated: '2026-10-01T06:10:00-07:00' });
    const updated = eventOf(pollEvents([after], [before]), 'incident.updated');
    expect(updated.data).toMatchObject({ changes: { services: { from: ['Files'], to: ['Messaging'] } } });
    expect(matchesFilters({ services: ['Files'] }, updated)).toBe(true);
    expect(matchesFilters({ services: ['Messaging'] }, updated)).toBe(true);
    expect(matchesFilters({ services: ['Huddles'] }, updated)).toBe(false);
  });

  it('counts a change from no services as matching every service filter', () => {
    const before = rawIncident({ services: [] });
    const after = rawIncident({ services: ['Messaging'], date_updated: '2026-10-01T06:10:00-07:00' });
    const updated = eventOf(pollEvents([after], [before]), 'incident.updated');
    expect(matchesFilters({ services: ['Huddles'] }, updated)).toBe(true);
  });

  it('uses only the current services for events other than a services change', () => {
    const before = rawIncident({ services: ['Files'] });
    const after = rawIncident({
      services: ['Messaging'],
      date_updated: '2026-10-01T06:20:00-07:00',
      notes: [...before.notes, { body: '<p>Moved.</p>', date_created: '2026-10-01T06:20:00-07:00' }],
    });
    const events = pollEvents([after], [before]);
    expect(matchesFilters({ services: ['Files'] }, eventOf(events, 'incident.note_added'))).toBe(false);
    expect(matchesFilters({ services: ['Files'] }, eventOf(events, 'incident.updated'))).toBe(true);
  });

  it('matches listed incident types, ignoring case', () => {
    expect(matches({ types: ['outage'] })).toBe(true);
    expect(matches({ types: ['notice', 'incident'] })).toBe(false);
    // Filters are lower-cased when parsed; one stored otherwise still matches.
    expect(matches({ types: ['Outage'] })).toBe(true);
  });

  it('matches a type change by the old type as well as the new one', () => {
    const before = rawIncident({ type: 'notice' });
    const after = rawIncident({ type: 'outage', date_updated: '2026-10-01T06:10:00-07:00' });
    const updated = eventOf(pollEvents([after], [before]), 'incident.updated');
    expect(matchesFilters({ types: ['notice'] }, updated)).toBe(true);
    expect(matchesFilters({ types: ['outage'] }, updated)).toBe(true);
    expect(matchesFilters({ types: ['incident'] }, updated)).toBe(false);
  });

  it('matches listed event types', () => {
    expect(matches({ events: ['incident.created'] })).toBe(true);
    expect(matches({ events: ['incident.status_changed', 'incident.note_added'] })).toBe(false);
  });

  it('needs every set list to match', () => {
    expect(matches({ services: ['Messaging'], types: ['outage'], events: ['incident.created'] })).toBe(true);
    expect(matches({ services: ['Messaging'], types: ['notice'], events: ['incident.created'] })).toBe(false);
    expect(matches({ services: ['Files'], types: ['outage'], events: ['incident.created'] })).toBe(false);
  });
});

/** The event as a source's page would have made it: its incident's id is `<source>:<vendor id>`, its services the page's. */
function asSourceEvent(event: StatusEvent, source: string, services: string[]): StatusEvent {
  const incidentId = `${source}:${event.incidentId}`;
  const data = { ...event.data, incident: { ...(event.data as { incident: object }).incident, id: incidentId, services } } as StatusEvent['data'];
  return { ...event, id: `${source}:${event.id}`, incidentId, data };
}

describe('matchesFilters across sources', () => {
  const [created] = pollEvents([rawIncident({ type: 'outage', services: ['Messaging'] })]);
  const main = created!;
  const github = asSourceEvent(main, 'src_gh', ['Actions', 'Pages']);
  const monitor: StatusEvent = {
    id: 'monitor.blind.1',
    type: 'monitor.blind',
    incidentId: '',
    revision: 0,
    occurredAt: 0,
    detectedAt: 0,
    backfill: false,
    data: { type: 'monitor.blind', since: null, last_error: 'HTTP 503', last_known: { ongoing: [], more: 0 } },
  };

  it('sends a subscription without filters.sources the main feed alone, as before sources existed', () => {
    expect(matchesFilters({}, main)).toBe(true);
    expect(matchesFilters({}, github)).toBe(false);
    expect(matchesFilters({ monitor: true }, monitor)).toBe(true);
    // No filter of any other kind lets a source's event through to it.
    expect(matchesFilters({ services: [], types: ['outage'], events: ['incident.created'] }, github)).toBe(false);
  });

  it('sends a subscription with filters.sources only the sources it lists', () => {
    expect(matchesFilters({ sources: ['src_gh'] }, github)).toBe(true);
    expect(matchesFilters({ sources: ['src_gh'] }, main)).toBe(false);
    expect(matchesFilters({ sources: ['src_other'] }, github)).toBe(false);
    expect(matchesFilters({ sources: ['main', 'src_gh'] }, main)).toBe(true);
    expect(matchesFilters({ sources: ['main', 'src_gh'] }, github)).toBe(true);
  });

  it("keeps monitor events the main feed's", () => {
    expect(matchesFilters({ sources: ['src_gh'], monitor: true }, monitor)).toBe(false);
    expect(matchesFilters({ sources: ['main', 'src_gh'], monitor: true }, monitor)).toBe(true);
  });

  it("matches each source's services within that source, unqualified names being the main feed's", () => {
    const both = ['main', 'src_gh'];
    expect(matchesFilters({ sources: both, services: ['src_gh:Actions'] }, github)).toBe(true);
    expect(matchesFilters({ sources: both, services: ['src_gh:Copilot'] }, github)).toBe(false);
    // A main-feed name does not match a source's service of the same name, nor narrow the source.
    expect(matchesFilters({ sources: both, services: ['Actions'] }, github)).toBe(true);
    expect(matchesFilters({ sources: both, services: ['Files'] }, main)).toBe(false);
    expect(matchesFilters({ sources: both, services: ['Files', 'src_gh:Actions'] }, main)).toBe(false);
    expect(matchesFilters({ sources: both, services: ['main:Messaging', 'src_gh:Copilot'] }, main)).toBe(true);
  });
});

describe('matchesFilters for a component that changed state', () => {
  const flip = (group?: string): StatusEvent => {
    const [event] = componentEvents({
      source: { id: 'src_gh', name: 'GitHub' },
      kept: new Map([
        [
          'c1',
          {
            id: 'c1',
            name: 'Actions',
            status: 'operational',
            vendorStatus: 'operational',
            groupId: group ? 'g1' : null,
            position: 1,
            isGroup: false,
            updatedAt: 1,
          },
        ],
      ]),
      read: [
        { id: 'c1', name: 'Actions', status: 'major_outage', vendorStatus: 'major_outage', groupId: group ? 'g1' : null, position: 1, isGroup: false },
        ...(group ? [{ id: 'g1', name: group, status: 'operational' as const, vendorStatus: 'operational', groupId: null, position: 2, isGroup: true }] : []),
      ],
      detectedAt: 2,
    });
    return event!;
  };
  const actions = flip();

  it('goes to subscriptions that chose its source, never to those of the main feed alone', () => {
    expect(matchesFilters({ sources: ['src_gh'] }, actions)).toBe(true);
    expect(matchesFilters({ sources: ['main', 'src_gh'] }, actions)).toBe(true);
    expect(matchesFilters({ sources: ['src_other'] }, actions)).toBe(false);
    expect(matchesFilters({}, actions)).toBe(false);
    expect(matchesFilters({ monitor: true, events: ['component.status_changed'] }, actions)).toBe(false);
  });

  it("is narrowed by its source's services, by the component's name or its group's and its name", () => {
    expect(matchesFilters({ sources: ['src_gh'], services: ['src_gh:Actions'] }, actions)).toBe(true);
    expect(matchesFilters({ sources: ['src_gh'], services: ['src_gh:Pages'] }, actions)).toBe(false);
    // Another source's services, or the main feed's, do not narrow it.
    expect(matchesFilters({ sources: ['main', 'src_gh'], services: ['Pages'] }, actions)).toBe(true);
    expect(matchesFilters({ sources: ['src_gh'], services: ['src_gh:Core / Actions'] }, flip('Core'))).toBe(true);
    expect(matchesFilters({ sources: ['src_gh'], services: ['src_gh:Actions'] }, flip('Core'))).toBe(true);
  });

  it('passes an events list only when the list names it, and no incident types narrow it', () => {
    expect(matchesFilters({ sources: ['src_gh'], events: ['incident.created', 'incident.status_changed'] }, actions)).toBe(false);
    expect(matchesFilters({ sources: ['src_gh'], events: ['component.status_changed'] }, actions)).toBe(true);
    expect(matchesFilters({ sources: ['src_gh'], types: ['outage'] }, actions)).toBe(true);
  });

  it('makes a delivery of its own on every channel', () => {
    const email = subscription({ id: 'sub_mail', channel: 'email', target: 'a@example.com', filters: { sources: ['src_gh'] } });
    const hook = subscription({ filters: { sources: ['src_gh'] } });
    expect(planDeliveries([actions], [hook, email])).toEqual([
      { key: `${actions.id}|sub_1`, subscriptionId: 'sub_1', channel: 'webhook', eventIds: [actions.id] },
      { key: `${actions.id}|sub_mail`, subscriptionId: 'sub_mail', channel: 'email', eventIds: [actions.id] },
    ]);
  });
});

// The schema lives in subscription.ts; these check that what it parses is what matchesFilters expects.
describe('filters from a request to subscribe', () => {
  const schema = createSubscriptionSchema();
  const issues = (body: unknown) => {
    const result = schema.safeParse(body);
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('trims and dedupes services, lower-cases types, and matches the vendor as written', () => {
    const parsed = schema.parse({
      channel: 'email',
      email: ' ops@example.com ',
      timezone: 'europe/berlin',
      filters: { services: [' Messaging ', 'Messaging'], types: ['Outage', 'outage'], events: ['incident.created', 'incident.created'] },
    });
    expect(parsed).toEqual({
      channel: 'email',
      target: 'ops@example.com',
      timeZone: 'Europe/Berlin',
      filters: { services: ['Messaging'], types: ['outage'], events: ['incident.created'], monitor: true },
    });
    const [created] = pollEvents([rawIncident({ type: 'outage' })]);
    expect(matchesFilters(parsed.filters, created!)).toBe(true);
  });

  it("defaults to every event, the monitor's own too, in UTC", () => {
    expect(schema.parse({ channel: 'webhook', url: 'https://hooks.example.com/in' })).toEqual({
      channel: 'webhook',
      target: 'https://hooks.example.com/in',
      filters: { monitor: true },
      timeZone: 'UTC',
    });
  });

  it('says what is wrong', () => {
    expect(issues({ channel: 'sms' })).toEqual(['channel: channel must be one of webhook, email, channel, app, pagerduty, opsgenie, teams, discord']);
    expect(issues({ channel: 'channel' })).toEqual(['url: a channel subscription needs url']);
    expect(issues({ channel: 'webhook', url: 'http://hooks.example.com/in' })).toEqual([
      'url: url must be an https: URL, got scheme http: (set WEBHOOK_ALLOW_PRIVATE=true to allow plain http: and private or loopback targets)',
    ]);
    expect(issues({ channel: 'email', email: 'ops', timezone: 'Mars/Olympus' })).toEqual([
      'email: email must be one address such as ops@example.com: it is not an email address',
      'timezone: timezone must be an IANA time zone such as Europe/Berlin, got "Mars/Olympus"',
    ]);
    expect(issues({ channel: 'email', email: 'ops@example.com', filters: { events: ['incident.deleted'], services: Array(51).fill('x') } })).toEqual([
      'filters.services: filters.services may list at most 50 entries',
      'filters.events.0: filters.events entries must be one of incident.created, incident.status_changed, incident.note_added, incident.note_edited, incident.updated, monitor.blind, monitor.recovered, component.status_changed',
    ]);
    // A misspelt key must not quietly subscribe someone to everything.
    expect(issues({ channel: 'email', email: 'ops@example.com', filter: { services: ['Files'] } })).toEqual([': Unrecognized key: "filter"']);
  });

  it('takes filters.sources as source ids, and services qualified by a source it lists', () => {
    const parsed = schema.parse({
      channel: 'webhook',
      url: 'https://hooks.example.com/in',
      filters: { sources: [' src_gh ', 'main', 'src_gh'], services: ['src_gh:Actions', 'Files'] },
    });
    expect(parsed.filters).toEqual({ sources: ['src_gh', 'main'], services: ['src_gh:Actions', 'Files'], monitor: true });
    const hook = { channel: 'webhook', url: 'https://hooks.example.com/in' };
    expect(issues({ ...hook, filters: { sources: ['GitHub'] } })).toEqual([
      'filters.sources.0: filters.sources entries must be source ids as GET /api/sources lists them ("main" or src_...), got "GitHub"',
    ]);
    expect(issues({ ...hook, filters: { sources: [] } })).toEqual([
      'filters.sources: filters.sources must list at least one source; leave it out for the main feed alone',
    ]);
    expect(issues({ ...hook, filters: { sources: Array.from({ length: 51 }, (_, i) => `src_${i}`) } })).toEqual([
      'filters.sources: filters.sources may list at most 50 entries',
    ]);
    expect(issues({ ...hook, filters: { services: ['src_gh:Actions'] } })).toEqual([
      'filters.services: filters.services entry "src_gh:Actions" names source src_gh, which filters.sources does not list (without filters.sources only the main feed is sent)',
    ]);
    expect(issues({ ...hook, filters: { sources: ['src_gh'], services: ['Files'] } })).toEqual([
      'filters.services: filters.services entry "Files" names source main, which filters.sources does not list',
    ]);
  });

  it('takes http: URLs only when asked to', () => {
    const local = createSubscriptionSchema({ allowPlainHttp: true });
    expect(local.parse({ channel: 'webhook', url: 'http://10.0.0.5:8080/in' }).target).toBe('http://10.0.0.5:8080/in');
    expect(local.safeParse({ channel: 'webhook', url: 'ftp://10.0.0.5/in' }).success).toBe(false);
  });
});

describe('planDeliveries', () => {
  it('sends a webhook one delivery per event, keyed by event and subscription', () => {
    const events = twoIncidents();
    expect(events).toHaveLength(3);
    const deliveries = planDeliveries(events, [subscription({ id: 'sub_w' })]);
    expect(deliveries).toEqual(events.map((e) => ({ key: `${e.id}|sub_w`, subscriptionId: 'sub_w', channel: 'webhook', eventIds: [e.id] })));
  });

  it('groups the events of one incident into one email or channel delivery, one per incident', () => {
    const events = twoIncidents();
    const files = events.filter((e) => e.incidentId === '1580');
    const huddles = events.filter((e) => e.incidentId === '1581');
    expect(files.map((e) => e.type)).toEqual(['incident.status_changed', 'incident.note_added']);

    for (const channel of ['email', 'channel'] as const) {
      const deliveries = planDeliveries(events, [subscription({ id: 'sub_m', channel })]);
      // 1581 began at 06:30, before 1580 resolved at 07:10: incidents come in the batch's order.
      expect(deliveries).toEqual([
        { key: `${huddles[0]!.id}|sub_m`, subscriptionId: 'sub_m', channel, eventIds: [huddles[0]!.id] },
        {
          key: `${files
            .map((e) => e.id)
            .sort()
            .join('+')}|sub_m`,
          subscriptionId: 'sub_m',
          channel,
          eventIds: files.map((e) => e.id),
        },
      ]);
    }
  });

  it('groups exactly as the messages are built', () => {
    const events = twoIncidents();
    const deliveries = planDeliveries(events, [subscription({ channel: 'email' })]);
    expect(deliveries.map((d) => d.eventIds)).toEqual(groupForMessages(events).map((u) => u.eventIds));
  });

  it('forms a group only of the events that pass the filters', () => {
    const events = twoIncidents();
    const statusOnly = subscription({ id: 'sub_s', channel: 'email', filters: { events: ['incident.status_changed'] } });
    const status = eventOf(events, 'incident.status_changed');
    expect(planDeliveries(events, [statusOnly])).toEqual([{ key: `${status.id}|sub_s`, subscriptionId: 'sub_s', channel: 'email', eventIds: [status.id] }]);

    const huddlesOnly = subscription({ id: 'sub_h', channel: 'channel', filters: { services: ['Huddles'] } });
    expect(planDeliveries(events, [huddlesOnly]).map((d) => d.eventIds)).toEqual([[eventOf(events, 'incident.created').id]]);

    const nothing = subscription({ channel: 'email', filters: { services: ['Calls'] } });
    expect(planDeliveries(events, [nothing])).toEqual([]);
  });

  it('causes nothing for backfill events', () => {
    const events = pollEvents([filesResolved, huddlesNew], [], true);
    expect(events.length).toBeGreaterThan(0);
    const all = (['webhook', 'email', 'channel'] as const).map((channel, i) => subscription({ id: `sub_${i}`, channel }));
    expect(planDeliveries(events, all)).toEqual([]);
  });

  it('leaves backfill events out of a batch that mixes them with news', () => {
    const news = pollEvents([huddlesNew]);
    const history = pollEvents([filesResolved], [], true);
    const deliveries = planDeliveries([...history, ...news], [subscription({ channel: 'email' })]);
    expect(deliveries.map((d) => d.eventIds)).toEqual([news.map((e) => e.id)]);
  });

  it('sends nothing to pending or paused subscriptions', () => {
    const events = twoIncidents();
    const idle = [
      subscription({ id: 'a', status: 'pending' }),
      subscription({ id: 'b', status: 'paused', channel: 'email' }),
      subscription({ id: 'c', status: 'paused', channel: 'channel' }),
    ];
    expect(planDeliveries(events, idle)).toEqual([]);
    expect(planDeliveries(events, [...idle, subscription({ id: 'd' })]).map((d) => d.subscriptionId)).toEqual(['d', 'd', 'd']);
  });

  it('plans every subscription, in order, with keys unique across them', () => {
    const events = twoIncidents();
    const subs = [
      subscription({ id: 'w' }),
      subscription({ id: 'e', channel: 'email', target: 'ops@example.com' }),
      subscription({ id: 'c', channel: 'channel', target: 'https://chat.example.com/hook' }),
    ];
    const deliveries = planDeliveries(events, subs);
    expect(deliveries.map((d) => `${d.subscriptionId}:${d.eventIds.length}`)).toEqual(['w:1', 'w:1', 'w:1', 'e:1', 'e:2', 'c:1', 'c:2']);
    expect(new Set(deliveries.map((d) => d.key)).size).toBe(deliveries.length);
  });

  it('gives the same output when the same poll is planned again', () => {
    const subs = [subscription({ id: 'w' }), subscription({ id: 'e', channel: 'email' })];
    expect(planDeliveries(twoIncidents(), subs)).toEqual(planDeliveries(twoIncidents(), subs));
  });

  it('keys a group by its events, whatever order they came in', () => {
    const events = twoIncidents();
    const sub = [subscription({ channel: 'email' })];
    const keys = (batch: StatusEvent[]) =>
      planDeliveries(batch, sub)
        .map((d) => d.key)
        .sort();
    expect(keys([...events].reverse())).toEqual(keys(events));
  });

  it('plans an event that appears twice in a batch once', () => {
    const events = twoIncidents();
    const doubled = [...events, ...events];
    const subs = [subscription({ id: 'w' }), subscription({ id: 'e', channel: 'email' })];
    expect(planDeliveries(doubled, subs)).toEqual(planDeliveries(events, subs));
  });

  it('plans nothing for no events or no subscriptions', () => {
    expect(planDeliveries([], [subscription()])).toEqual([]);
    expect(planDeliveries(twoIncidents(), [])).toEqual([]);
  });
});

describe('webhookMessageId', () => {
  const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
  function fromBase32(text: string): Buffer {
    let bits = '';
    for (const char of text) bits += BASE32.indexOf(char).toString(2).padStart(5, '0');
    const bytes: number[] = [];
    for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
    return Buffer.from(bytes);
  }

  it('is msg_ and the base32 of the first 16 bytes of SHA-256 of the key', async () => {
    const key = '1580.r2.status|sub_1';
    const id = await webhookMessageId(key);
    expect(id).toMatch(/^msg_[a-z2-7]{26}$/);
    expect(fromBase32(id.slice(4))).toEqual(createHash('sha256').update(key).digest().subarray(0, 16));
  });

  it('is the same for the same key, every time, and differs between keys', async () => {
    const [delivery] = planDeliveries(twoIncidents(), [subscription()]);
    const [again] = planDeliveries(twoIncidents(), [subscription()]);
    expect(await webhookMessageId(delivery!.key)).toBe(await webhookMessageId(again!.key));
    expect(await webhookMessageId('a|sub_1')).not.toBe(await webhookMessageId('a|sub_2'));
  });

  it('hashes the UTF-8 of any key', async () => {
    const key = 'Überfall|sub_✓';
    expect(fromBase32((await webhookMessageId(key)).slice(4))).toEqual(createHash('sha256').update(key, 'utf8').digest().subarray(0, 16));
  });
});
