/**
 * The watched pages on the dashboard (both projects: a SQLite file on Node, D1 in workerd; real
 * HTTP on loopback to the simulated vendor and a simulated page in the Statuspage format): `/`
 * keeps the main feed's page and gains an overview of every source, each source has a page of its
 * own with its components in our words, and a source never read or gone blind is "unknown" in the
 * main feed's words. What a page sends is escaped.
 */
import { describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { componentState } from '../helpers/component-states.ts';
import { useSourceFaceWorld } from '../helpers/source-face-world.ts';

const EVIL_NAME = '<script>alert(1)</script> Cloud';
const MINUTE_MS = 60_000;

describe('sources on the dashboard', () => {
  const world = useSourceFaceWorld({ pageName: EVIL_NAME, vendorIncidents: [rawIncident({ id: 41 })] });
  const html = world.get;
  /** The text of the overview's row for the source, tags dropped. */
  const overviewRow = (text: string) => {
    const section = text.slice(text.indexOf('id="sources-title"'));
    const row = section.slice(section.indexOf('<tr>', section.indexOf('<tbody>')), section.indexOf('</tr>', section.indexOf('<tbody>')));
    return row
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  };
  /** A component's row on the source's page, tags dropped. */
  const componentRow = (text: string, name: string) => {
    const rows = text.slice(text.indexOf('id="components-title"')).split('<tr>');
    const row = rows.find((r) => r.includes(`>${name}<`) || r.includes(`· ${name}<`)) ?? '';
    return row
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  };

  it("a source never read is Unknown in the overview, and its page says so in the main feed's words", async () => {
    const home = await html('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('<h1 id="banner-title">1 incident going on</h1>'); // the main feed's page as before
    expect(overviewRow(home.text)).toBe('&lt;script&gt;alert(1)&lt;/script&gt; Cloud Unknown no incident going on when last read');
    const own = await html(`/sources/${world.sourceId}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain('Status unknown');
    expect(own.text).toContain('status feed has not been read yet: there is no data on how its services stand.');
    expect(own.text).not.toContain('All clear');
    expect(own.text).toContain('No component has been read from this page.');
  });

  it("shows each component's state in our words beside the page's, and the source's incident going on", async () => {
    await fetch(`${world.page.url}/_sim/advance`, { method: 'POST' }); // the story's incident opens: API partially out
    expect((await world.service.admin('POST', `/api/admin/poll?source=${world.sourceId}`)).body.sources[0].outcome).toBe('ok');
    const home = await html('/');
    expect(overviewRow(home.text)).toBe('&lt;script&gt;alert(1)&lt;/script&gt; Cloud Outage 1 incident going on');
    expect(home.text).toContain('<h1 id="banner-title">1 incident going on</h1>'); // a source's incident is not the main feed's
    // Nor are its services the vendor's: no row on the main feed's bars, none in its track record.
    expect(home.text).not.toContain('>API<');
    const track = (await world.service.get('/api/reliability')).body;
    expect(track.availability.services.map((s: { service: string }) => s.service)).not.toContain('API');
    const own = await html(`/sources/${world.sourceId}`);
    expect(own.text).toContain('1 incident going on');
    expect(own.text).toContain('Elevated API error rates');
    expect(componentRow(own.text, 'API')).toMatch(/^· API Outage partial outage /);
    expect(componentRow(own.text, 'Website')).toMatch(/^Website Operational operational /);
  });

  it('a source gone blind is Unknown everywhere, its components too, though its last reading is kept', async () => {
    world.nowMs += 6 * MINUTE_MS;
    await world.page.fault({ target: '*', kind: 'status', status: 503, times: 5 });
    expect((await world.service.admin('POST', `/api/admin/poll?source=${world.sourceId}`)).body.sources[0].outcome).toBe('failed');
    expect((await world.service.poll()).run.outcome).toBe('ok'); // the main feed read anew, so only the source is blind
    const home = await html('/');
    expect(overviewRow(home.text)).toBe('&lt;script&gt;alert(1)&lt;/script&gt; Cloud Unknown 1 incident going on when last read');
    const own = await html(`/sources/${world.sourceId}`);
    expect(own.text).toContain('Status unknown');
    expect(own.text).toContain('status feed cannot be read: no data since');
    expect(componentRow(own.text, 'API')).toMatch(/^· API Unknown partial outage when last read /);
    expect(own.text).toContain('Going on when the page was last read');
    await world.page.clearFaults();
  });

  it("escapes the page's name and its components' names on its page", async () => {
    // As a poll of a page naming its component so would leave it.
    await world.pageReads([componentState('evil', 'major_outage', { name: '<img src=x onerror=alert(2)>', position: 9 })]);
    const own = await html(`/sources/${world.sourceId}`);
    expect(own.text).not.toContain('<script>alert(1)');
    expect(own.text).not.toContain('<img src=x');
    expect(own.text).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(own.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Cloud');
  });

  it("searches the page's incidents from its page, the source kept across pages of results and in the form", async () => {
    const own = await html(`/sources/${world.sourceId}`);
    expect(own.text).toContain(`href="/incidents?source=${world.sourceId}"`);
    const first = await html(`/incidents?source=${world.sourceId}&limit=1`);
    expect(first.status).toBe(200);
    expect(first.text).toContain(`/incidents/${world.sourceId}%3Aswinc0000001`);
    expect(first.text).not.toContain('/incidents/41"');
    expect(first.text).toContain(`<input type="hidden" name="source" value="${world.sourceId}"/>`);
    const next = /href="(\/incidents\?[^"]*cursor=[^"]+)"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toContain(`source=${world.sourceId}`);
    const second = await html(next!);
    expect(second.text).toContain(`/incidents/${world.sourceId}%3Aswinc0000000`);
    expect(second.text).not.toContain('/incidents/41"');
  });

  it('answers 404 for a source that is not watched', async () => {
    const missing = await html('/sources/src_nope');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No status page “src_nope” is watched.');
    expect((await html('/sources/main')).status).toBe(404);
  });
});
