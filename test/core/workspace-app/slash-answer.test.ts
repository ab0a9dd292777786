/** What `/status` says, from the widget's data as plain values: blind stays unknown, vendor text stays text, long lists are cut. */
import { describe, expect, it } from 'vitest';
import {
  escapeMrkdwn,
  SLASH_INCIDENTS_MAX,
  SLASH_PAGES_LISTED,
  slashStatusAnswer,
  slashUnknownServiceAnswer,
} from '../../../src/core/workspace-app/slash-answer.ts';
import type { WidgetIncident, WidgetJson } from '../../../src/core/widget-state.ts';

const incident = (n: number, over: Partial<WidgetIncident> = {}): WidgetIncident => ({
  id: String(n),
  title: `Incident ${n}`,
  type: 'incident',
  status: 'active',
  state: 'incident',
  services: ['Files'],
  updated_at: '2026-11-23T09:00:00Z',
  url: `https://status.example.test/incidents/${n}`,
  ...over,
});
const widget = (over: Partial<WidgetJson> = {}): WidgetJson => ({
  state: 'ok',
  stale: false,
  reads_failing: false,
  last_read_at: null,
  unknown_since: null,
  last_known_state: null,
  updated_at: null,
  url: 'https://status.example.test/',
  services: [],
  incidents: [],
  ...over,
});

describe('the /status answer', () => {
  it('while blind says unknown and since when, with what was last known, never all good', () => {
    const { text, response_type } = slashStatusAnswer(
      widget({ state: 'unknown', stale: true, unknown_since: '2026-11-23T08:00:00Z', last_known_state: 'ok' }),
      null,
    );
    expect(response_type).toBe('ephemeral');
    expect(text).toContain('*The vendor: unknown.*');
    expect(text).toContain('since 2026-11-23T08:00:00Z');
    expect(text).toContain('Last known: All good.');
    expect(text).not.toContain('all good.*');
  });

  it('keeps vendor text as text: markup is escaped and a title cannot end its link early', () => {
    const { text } = slashStatusAnswer(widget({ state: 'outage', incidents: [incident(1, { title: 'A|B <@U123> & >', state: 'outage' })] }), 'Files');
    expect(text).toContain('<https://status.example.test/incidents/1|A¦B &lt;@U123&gt; &amp; &gt;>');
    expect(text).toContain('*Files: Outage.*');
    expect(escapeMrkdwn('<!here>')).toBe('&lt;!here&gt;');
  });

  it(`lists at most ${SLASH_INCIDENTS_MAX} incidents and says how many more, then the dashboard`, () => {
    const { text } = slashStatusAnswer(widget({ state: 'incident', incidents: Array.from({ length: SLASH_INCIDENTS_MAX + 3 }, (_, n) => incident(n)) }), null);
    expect(text.split('\n').filter((line) => line.startsWith('• '))).toHaveLength(SLASH_INCIDENTS_MAX);
    expect(text).toContain('…and 3 more.');
    expect(text.split('\n').at(-1)).toBe('<https://status.example.test/|Open the status dashboard>');
  });

  it('names an unknown service as unknown, escaped and cut', () => {
    const { text } = slashUnknownServiceAnswer(`<b>${'x'.repeat(100)}`, ['Files', 'Calls'], 'https://status.example.test/');
    expect(text).toContain('knows no service called “&lt;b&gt;xxx');
    expect(text).toContain('…”, so its state is unknown');
    expect(text).toContain('Known services: Files, Calls.');
  });

  it('lists the watched pages when no service or page has the name, at most SLASH_PAGES_LISTED of them, each escaped and cut', () => {
    const pages = Array.from({ length: SLASH_PAGES_LISTED + 7 }, (_, n) => `Page ${n}`);
    pages[0] = `<!here> ${'y'.repeat(100)}`;
    const { text } = slashUnknownServiceAnswer('Nope', ['Files'], 'https://status.example.test/', pages);
    expect(text).toContain('knows no service or watched status page called “Nope”');
    const listed = text.split('\n').find((line) => line.startsWith('Watched status pages'))!;
    expect(listed).toContain(`Page ${SLASH_PAGES_LISTED - 1} and 7 more.`);
    expect(listed).not.toContain(`Page ${SLASH_PAGES_LISTED},`);
    expect(listed).not.toContain('<!here>');
    expect(listed).toContain(`&lt;!here&gt; ${'y'.repeat(55)}…,`);
  });
});
