import { describe, expect, it } from 'vitest';
import type { EventType, StatusEvent } from '../../src/core/events.ts';
import { toWebhookPayload, WEBHOOK_PAYLOAD_MAX_BYTES, type WebhookPayload } from '../../src/core/webhook-payload.ts';
import { pollEvents, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

const NOW = Date.UTC(2026, 9, 1, 15, 0, 0);

function eventOf(events: StatusEvent[], type: EventType): StatusEvent {
  const event = events.find((e) => e.type === type);
  if (!event) throw new Error(`no ${type} among ${events.map((e) => e.type).join(', ')}`);
  return event;
}

function bytes(payload: WebhookPayload): number {
  return new TextEncoder().encode(JSON.stringify(payload)).byteLength;
}

const base = rawIncident();
const incident = {
  id: '1579',
  title: 'Free Plan Customers Are Experiencing Message Failures',
  type: 'incident',
  status: 'active',
  url: 'https://slack-status.com/2026-10/6c28dfb7b670dc02',
  services: ['Messaging'],
  date_created: '2026-10-01T05:39:35-07:00',
  date_updated: '2026-10-01T05:56:59-07:00',
};
const LATER = '2026-10-01T06:30:00-07:00';
const FINAL_NOTE = { body: '<p>Messages send normally again.&nbsp;</p>', date_created: LATER };

describe('toWebhookPayload', () => {
  it('writes incident.created with the incident summary and its latest note', () => {
    const [created] = pollEvents([base]);
    expect(toWebhookPayload(created!)).toEqual({
      type: 'incident.created',
      timestamp: '2026-10-01T15:00:00.000Z',
      data: {
        incident,
        note: {
          date_created: '2026-10-01T05:56:59-07:00',
          body: '<p>A third-party app is stuck in a loop.</p>',
          text: 'A third-party app is stuck in a loop.',
        },
      },
    });
  });

  it('writes incident.status_changed with from, to and the note that came with it', () => {
    const resolved = rawIncident({ status: 'resolved', date_updated: LATER, notes: [...base.notes, FINAL_NOTE] });
    const status = eventOf(pollEvents([resolved], [base]), 'incident.status_changed');
    expect(toWebhookPayload(status)).toEqual({
      type: 'incident.status_changed',
      timestamp: '2026-10-01T15:00:00.000Z',
      data: {
        incident: { ...incident, status: 'resolved', date_updated: LATER },
        from: 'active',
        to: 'resolved',
        note: { date_created: LATER, body: FINAL_NOTE.body, text: 'Messages send normally again.' },
      },
    });
  });

  it('writes incident.note_added with the note', () => {
    const noted = rawIncident({ date_updated: LATER, notes: [...base.notes, FINAL_NOTE] });
    const added = eventOf(pollEvents([noted], [base]), 'incident.note_added');
    expect(toWebhookPayload(added).data).toEqual({
      incident: { ...incident, date_updated: LATER },
      note: { date_created: LATER, body: FINAL_NOTE.body, text: 'Messages send normally again.' },
    });
  });

  it('writes incident.note_edited with the note as it is now and the previous body', () => {
    const [first, second] = base.notes;
    const edited = rawIncident({ date_updated: LATER, notes: [first!, { ...second!, body: '<p>A third-party app was stuck in a loop.</p>' }] });
    const event = eventOf(pollEvents([edited], [base]), 'incident.note_edited');
    const payload = toWebhookPayload(event);
    expect(payload.type).toBe('incident.note_edited');
    expect(payload.data).toEqual({
      incident: { ...incident, date_updated: LATER },
      note: { date_created: second!.date_created, body: '<p>A third-party app was stuck in a loop.</p>', text: 'A third-party app was stuck in a loop.' },
      from: '<p>A third-party app is stuck in a loop.</p>',
    });
  });

  it('writes incident.updated with the changed fields', () => {
    const moved = rawIncident({ title: 'Message failures', services: ['Messaging', 'Files'], date_updated: LATER });
    const event = eventOf(pollEvents([moved], [base]), 'incident.updated');
    expect(toWebhookPayload(event).data).toEqual({
      incident: { ...incident, title: 'Message failures', services: ['Messaging', 'Files'], date_updated: LATER },
      changes: {
        title: { from: incident.title, to: 'Message failures' },
        services: { from: ['Messaging'], to: ['Messaging', 'Files'] },
      },
    });
  });

  it('reads a plain-text note (2019-2023) as text, "<" and all', () => {
    const [created] = pollEvents([rawIncident({ notes: [{ body: 'Latency < 2s & falling', date_created: base.date_updated }] })]);
    expect(toWebhookPayload(created!).data.note).toEqual({ date_created: base.date_updated, body: 'Latency < 2s & falling', text: 'Latency < 2s & falling' });
  });

  it('has no note when the event has none', () => {
    const [created] = pollEvents([rawIncident({ notes: [] })]);
    expect(toWebhookPayload(created!).data).toEqual({ incident: { ...incident, date_updated: incident.date_updated } });
  });

  it('keeps a real payload to a few hundred bytes, untouched', () => {
    const [created] = pollEvents([base]);
    const payload = toWebhookPayload(created!);
    expect(bytes(payload)).toBeLessThan(1000);
    expect(payload.data.truncated).toBeUndefined();
    expect(payload.data.note?.truncated).toBeUndefined();
  });
});

describe('toWebhookPayload size bound', () => {
  const MB = 1024 * 1024;
  const hostile = {
    // Every kind of character that costs more in JSON than in memory: escapes, 6-byte control
    // escapes, 3-byte and 4-byte UTF-8.
    quotes: '"\\'.repeat(MB / 2),
    control: '\u0001'.repeat(MB),
    emoji: '🔥'.repeat(MB / 2),
    // Unpaired surrogates, which JSON.stringify writes as 6-byte \udxxx escapes.
    lone: '\ud83d'.repeat(MB),
    html: '<p>' + 'Still investigating. '.repeat(MB / 21) + '</p>',
  };
  const many = Array.from({ length: 10_000 }, (_, i) => `Service ${i} ${'x'.repeat(200)}`);

  function hostileIncident(fill: string, overrides: Partial<RawIncident> = {}): RawIncident {
    return rawIncident({
      title: fill,
      type: fill,
      url: `https://slack-status.com/${fill}`,
      services: many,
      notes: [{ body: fill, date_created: '2026-10-01T05:39:35-07:00' }],
      ...overrides,
    });
  }

  /** One event of each type, every string in it as large as the vendor could make it. */
  function hostileEvents(fill: string): StatusEvent[] {
    const before = hostileIncident(fill);
    const after = hostileIncident(Array.from(fill).reverse().join('') + 'x', {
      status: 'resolved',
      services: [...many].reverse(),
      date_updated: LATER,
      notes: [
        { body: fill + 'edited', date_created: '2026-10-01T05:39:35-07:00' },
        { body: fill + 'new', date_created: LATER },
      ],
    });
    const events = [...pollEvents([before]), ...pollEvents([after], [before])];
    expect(new Set(events.map((e) => e.type)).size).toBe(5);
    return events;
  }

  for (const [name, fill] of Object.entries(hostile)) {
    it(`stays under ${WEBHOOK_PAYLOAD_MAX_BYTES} bytes for every event type with 1 MB strings (${name})`, () => {
      for (const event of hostileEvents(fill)) {
        const payload = toWebhookPayload(event);
        expect(bytes(payload), event.type).toBeLessThanOrEqual(WEBHOOK_PAYLOAD_MAX_BYTES);
        expect(payload.data.truncated, event.type).toBe(true);
        if (payload.data.note) expect(payload.data.note.truncated, event.type).toBe(true);
        // No surrogate pair split in half by a cut.
        if (name !== 'lone') expect(JSON.stringify(payload)).not.toMatch(/\\ud[89a-f]/);
      }
    });
  }

  it('stays under the bound when every string of the event is hostile, ids and dates too', () => {
    // Built by hand: the feed schema would refuse such ids and dates, but the bound must not rely on it.
    const fill = hostile.control;
    const services = Array.from({ length: 10_000 }, () => fill.slice(0, 500));
    const summary = { id: fill, title: fill, type: fill, status: fill, url: fill, services, date_created: fill, date_updated: fill };
    const note = { key: 'k', date_created: fill, body: fill };
    const datas: StatusEvent['data'][] = [
      { type: 'incident.created', incident: summary, note },
      { type: 'incident.status_changed', incident: summary, from: fill, to: fill, note },
      { type: 'incident.note_added', incident: summary, note },
      { type: 'incident.note_edited', incident: summary, note, from: fill, to: fill },
      {
        type: 'incident.updated',
        incident: summary,
        changes: { title: { from: fill, to: fill }, type: { from: fill, to: fill }, url: { from: fill, to: fill }, services: { from: services, to: services } },
      },
    ];
    for (const data of datas) {
      const event: StatusEvent = { id: 'x', type: data.type, incidentId: 'x', revision: 1, occurredAt: 0, detectedAt: NOW, backfill: false, data };
      expect(bytes(toWebhookPayload(event)), data.type).toBeLessThanOrEqual(WEBHOOK_PAYLOAD_MAX_BYTES);
    }
  });

  it('ends a cut string with an ellipsis and keeps its start', () => {
    const [created] = pollEvents([hostileIncident(hostile.html)]);
    const { data } = toWebhookPayload(created!);
    expect(data.note?.body.startsWith('<p>Still investigating. Still')).toBe(true);
    expect(data.note?.body.endsWith('…')).toBe(true);
    expect(data.note?.text.startsWith('Still investigating. Still')).toBe(true);
    expect(data.incident.title.endsWith('…')).toBe(true);
    expect(data.incident.services.length).toBeGreaterThan(0);
    expect(data.incident.services.length).toBeLessThan(many.length);
  });

  it('marks only the note when only the note is long', () => {
    const long = 'word '.repeat(2000);
    const [created] = pollEvents([rawIncident({ notes: [{ body: long, date_created: base.date_updated }] })]);
    const { data } = toWebhookPayload(created!);
    expect(data.truncated).toBe(true);
    expect(data.note?.truncated).toBe(true);
    expect(data.incident).toEqual(incident);
  });

  it('keeps a note that just fits whole', () => {
    const body = 'a'.repeat(1536);
    const [created] = pollEvents([rawIncident({ notes: [{ body, date_created: base.date_updated }] })]);
    const { data } = toWebhookPayload(created!);
    expect(data.note).toEqual({ date_created: base.date_updated, body, text: body });
    expect(data.truncated).toBeUndefined();
  });

  it('turns a long HTML note into text without a tag cut in half', () => {
    const body = '<p>' + 'x'.repeat(4090) + '<strong>more</strong></p>';
    const [created] = pollEvents([rawIncident({ notes: [{ body, date_created: base.date_updated }] })]);
    const note = toWebhookPayload(created!).data.note!;
    expect(note.truncated).toBe(true);
    expect(note.text).not.toContain('<');
  });
});
