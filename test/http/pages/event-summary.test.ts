import { describe, expect, it } from 'vitest';
import { componentEvents } from '../../../src/core/statuspage/component-events.ts';
import { EventSummary } from '../../../src/http/pages/admin-deliveries-page.tsx';

const HOSTILE = '<img src=x onerror=alert(1)> & "more"';

describe("the admin's word on a delivery's event", () => {
  it("names a component's change by its page, linked, and the states, the vendor's names escaped", () => {
    const [event] = componentEvents({
      source: { id: 'src_pay', name: HOSTILE },
      kept: new Map([
        ['c1', { id: 'c1', name: HOSTILE, status: 'operational', vendorStatus: 'operational', groupId: null, position: 1, isGroup: false, updatedAt: 1 }],
      ]),
      read: [{ id: 'c1', name: HOSTILE, status: 'major_outage', vendorStatus: 'major_outage', groupId: null, position: 1, isGroup: false }],
      detectedAt: 2,
    });
    const html = String(EventSummary({ event: event!, id: event!.id }));
    expect(html).toContain('href="/sources/src_pay"');
    expect(html).toContain('Operational → Outage');
    expect(html).not.toContain('the feed is read again');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
