import { describe, expect, it } from 'vitest';
import type { ServiceDayRow } from '../../../src/core/service-days.ts';
import type { WidgetState } from '../../../src/core/widget-state.ts';
import { dayLabel, rowSummary, ServiceBars } from '../../../src/http/pages/service-bars.tsx';

const HOSTILE_TITLE = '<img src=x onerror=alert(1)> & "more"';

const rows: ServiceDayRow[] = [
  {
    service: '<b>Files</b>',
    days: [
      { date: '2026-10-08', worst: null, noData: false, incidents: [] },
      {
        date: '2026-10-09',
        worst: 'outage',
        noData: false,
        incidents: [
          { id: '1', title: HOSTILE_TITLE, type: 'outage' },
          { id: '2', title: 'Slow uploads', type: 'incident' },
        ],
      },
    ],
  },
];

const now = new Map<string, WidgetState>([['<b>Files</b>', 'outage']]);
const availability = new Map<string, number | null>([['<b>Files</b>', 0.99]]);

describe('ServiceBars', () => {
  const html = String(ServiceBars({ rows, now, availability }));

  it('names each day in words: its date and every incident with its type', () => {
    expect(dayLabel(rows[0]!.days[0]!)).toBe('2026-10-08: no incidents');
    expect(dayLabel(rows[0]!.days[1]!)).toBe(`2026-10-09: ${HOSTILE_TITLE} (outage); Slow uploads (incident)`);
  });

  it('renders a labelled element per day in a list named by its service, one tab stop on the newest day, vendor text escaped', () => {
    expect(html.match(/<li class="day day-[a-z]+" tabindex="-1" aria-label="/g)).toHaveLength(1);
    expect(html.match(/<li class="day day-[a-z]+" tabindex="0" aria-label="/g)).toHaveLength(1);
    expect(html).toContain(
      '<li class="day day-outage" tabindex="0" aria-label="2026-10-09: &lt;img src=x onerror=alert(1)&gt; &amp; &quot;more&quot; (outage); Slow uploads (incident)">',
    );
    expect(html).toContain('<span class="service-name" id="service-bars-0">&lt;b&gt;Files&lt;/b&gt;</span>');
    expect(html).toContain('<ol class="day-bars" aria-labelledby="service-bars-0"');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('1 day with an outage');
    // The range is written once per width (wide screens, phones); both say the same two days here.
    expect(html).toContain('Oldest day on the left: <span class="bars-wide">2026-10-08 to 2026-10-09, UTC days</span>');
  });

  it('names at most three incidents a day and counts the rest, so a busy archive keeps the page small', () => {
    const busy = {
      date: '2026-10-10',
      worst: 'incident' as const,
      noData: false,
      incidents: ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, title: `Title ${id}`, type: 'incident' })),
    };
    expect(dayLabel(busy)).toBe('2026-10-10: Title a (incident); Title b (incident); Title c (incident); and 2 more');
    const page = String(ServiceBars({ rows: [{ service: 'Files', days: [busy] }], now, availability }));
    expect(page).not.toContain('Title d');
  });

  it('counts each day once, under its worst incident, the way its bar is coloured', () => {
    const day = (date: string, worst: 'outage' | 'incident' | 'notice' | null, noData = false) => ({ date, worst, noData, incidents: [] });
    // One red bar is one day: not "1 day with incidents, 1 with an outage".
    expect(rowSummary([day('2026-10-01', null), day('2026-10-02', 'outage')])).toBe('1 day with an outage');
    expect(rowSummary([day('2026-10-01', 'outage'), day('2026-10-02', 'incident'), day('2026-10-03', 'incident'), day('2026-10-04', 'notice')])).toBe(
      '1 day with an outage, 2 with incidents, 1 with a notice',
    );
    expect(rowSummary([day('2026-10-01', 'incident'), day('2026-10-02', null, true)])).toBe('1 day with an incident; 1 day without data');
    expect(rowSummary([day('2026-10-01', null, true)])).toBe('No data');
  });

  it('leads each row with its state now and its availability over the window', () => {
    expect(html).toContain('<span class="service-state state-now-outage">Outage</span>');
    expect(html).toContain('99.000% available over 2 days');
  });

  it('says each day once: the label is the tooltip, no second copy of the text', () => {
    expect(html).not.toContain('day-tip');
    expect(html.split('Slow uploads')).toHaveLength(2);
  });
});
