import { describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../src/core/events.ts';
import { emailSubject, groupForMessages, messageHeadline, oneLine, truncate, type IncidentUpdate } from '../../src/core/notification-message.ts';
import { filesIncidentResolved, pollEvents, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

const FINAL_NOTE = { body: '<p>Files upload normally again.&nbsp;</p><p><br></p>', date_created: '2026-10-01T07:10:00-07:00' };
const { active, resolved } = filesIncidentResolved(FINAL_NOTE.body);

function only(events: StatusEvent[]): IncidentUpdate {
  const updates = groupForMessages(events);
  expect(updates).toHaveLength(1);
  return updates[0]!;
}

describe('groupForMessages', () => {
  it('makes one update of "Resolved" plus its final note, not two', () => {
    const events = pollEvents([resolved], [active]);
    expect(events.map((e) => e.type)).toEqual(['incident.status_changed', 'incident.note_added']);
    const update = only(events);
    expect(update).toMatchObject({
      incidentId: '1580',
      created: false,
      status: { from: 'active', to: 'resolved' },
      notesAdded: 1,
      notesEdited: 0,
      note: { body: FINAL_NOTE.body },
      eventIds: events.map((e) => e.id),
    });
    expect(update.incident.status).toBe('resolved');
    expect(emailSubject(update)).toBe('[Resolved] Files: Some files fail to upload');
  });

  it('keeps incidents apart, in the order of their first event', () => {
    const other = rawIncident({ id: 1581, title: 'Huddles drop', services: ['Huddles'], date_created: '2026-10-01T04:00:00-07:00' });
    const events = pollEvents([resolved, other], [active]);
    const updates = groupForMessages(events);
    expect(updates.map((u) => u.incidentId)).toEqual(['1581', '1580']);
    expect(updates.map((u) => u.eventIds.length)).toEqual([1, 2]);
  });

  it("shows the newest note of the group, by the note's own time", () => {
    const edited = rawIncident({
      ...resolved,
      notes: [{ ...active.notes[0]!, body: '<p>We are aware of <strong>upload</strong> failures.</p>' }, active.notes[1]!, FINAL_NOTE],
    });
    const events = pollEvents([edited], [active]);
    expect(events.map((e) => e.type)).toContain('incident.note_edited');
    const update = only(events);
    expect(update.note?.body).toBe(FINAL_NOTE.body);
    expect(update.notesEdited).toBe(1);
  });

  it('orders notes of the same second by their counter', () => {
    const sameSecond = { body: '<p>second of the same second</p>', date_created: FINAL_NOTE.date_created };
    const events = pollEvents([rawIncident({ ...active, notes: [...active.notes, FINAL_NOTE, sameSecond] })], [active]);
    expect(only(events).note?.body).toBe(sameSecond.body);
  });

  it('leaves out backfill: history is never news', () => {
    expect(groupForMessages(pollEvents([active], [], true))).toEqual([]);
  });

  it('merges changes across polls: first from, last to; a field edited back is no change', () => {
    const renamed = rawIncident({ ...active, title: 'Uploads fail' });
    const back = rawIncident({ ...active, services: ['Files', 'Canvases'] });
    const first = pollEvents([renamed], [active]).map((e) => ({ ...e, revision: 2 }));
    const second = pollEvents([back], [renamed]).map((e) => ({ ...e, revision: 3 }));
    const update = only([...first, ...second]);
    expect(update.fields).toEqual({ services: { from: ['Files'], to: ['Files', 'Canvases'] } });
    expect(update.incident.title).toBe('Some files fail to upload');
  });
});

describe('headlines and subjects', () => {
  const subjectOf = (after: RawIncident, before?: RawIncident) => emailSubject(only(pollEvents([after], before ? [before] : [])));

  it('names a new incident, outage or notice by its type', () => {
    expect(subjectOf(rawIncident({ services: ['Messaging', 'Huddles'] }))).toBe(
      '[New incident] Messaging, Huddles: Free Plan Customers Are Experiencing Message Failures',
    );
    expect(subjectOf(rawIncident({ type: 'outage' }))).toMatch(/^\[Outage\] Messaging: /);
    expect(subjectOf(rawIncident({ type: 'notice' }))).toMatch(/^\[Notice\] Messaging: /);
    expect(subjectOf(rawIncident({ status: 'scheduled', type: 'notice' }))).toMatch(/^\[Scheduled\] /);
  });

  it('says Resolved for an incident first seen already over (a gap between polls)', () => {
    expect(subjectOf(resolved)).toBe('[Resolved] Files: Some files fail to upload');
  });

  it('says Update for a new note, Reopened for a resolved incident active again', () => {
    const withNote = rawIncident({ ...active, notes: [...active.notes, { body: '<p>Still looking.</p>', date_created: '2026-10-01T06:30:00-07:00' }] });
    expect(subjectOf(withNote, active)).toBe('[Update] Files: Some files fail to upload');
    expect(subjectOf(active, resolved)).toMatch(/^\[Reopened\] /);
    expect(subjectOf(rawIncident({ ...active, status: 'completed' }), active)).toMatch(/^\[Completed\] /);
  });

  it('says Changed for an edit of title or services alone', () => {
    expect(subjectOf(rawIncident({ ...active, title: 'Uploads fail' }), active)).toBe('[Changed] Files: Uploads fail');
    expect(subjectOf(rawIncident({ ...active, services: ['Files', 'Canvases'] }), active)).toBe('[Changed] Files, Canvases: Some files fail to upload');
  });

  it('says "All services" when none is named (as in incidents 1558, 1566 and 1571), and shortens long lists', () => {
    expect(subjectOf(rawIncident({ services: [] }))).toMatch(/^\[New incident\] All services: /);
    const many = ['Messaging', 'Files', 'Huddles', 'Canvases', 'Search'];
    expect(messageHeadline(only(pollEvents([rawIncident({ services: many })]))).services).toBe('Messaging, Files, Huddles +2 more');
  });

  it('keeps a subject on one line and of bounded length; a raw & stays as it is', () => {
    const subject = subjectOf(rawIncident({ title: 'Calls & Huddles\r\nBcc: victim@example.com\u2028x' }));
    expect(subject).toBe('[New incident] Messaging: Calls & Huddles Bcc: victim@example.com x');
    const long = subjectOf(rawIncident({ title: 'word '.repeat(60) }));
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBeLessThan(160);
    expect(long).not.toMatch(/[\r\n]/);
  });

  it('cuts text without splitting a surrogate pair', () => {
    expect(truncate('ab😀cd', 4)).toBe('ab😀…');
    expect(truncate('short', 10)).toBe('short');
    expect(oneLine(' a\t\nb\u0000c ')).toBe('a b c');
  });
});
