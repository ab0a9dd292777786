import { describe, expect, it } from 'vitest';
import { encodePhpJson } from '../../src/sim/php-json.ts';
import { parseVendorTime } from '../../src/core/vendor-time.ts';
import { formatVendorTime } from '../../src/sim/vendor-time-format.ts';
import { incident, putIncidents, setClock, startSim, SUMMER_NOON_MS } from './helpers.ts';

describe('PHP-style JSON', () => {
  it('escapes slashes and every non-ASCII unit, astral as surrogate pairs', () => {
    expect(encodePhpJson({ a: '<\/p> Apps/APIs', b: 'We\u2019re caf\u00e9 \u{1F680}' })).toBe(
      String.raw`{"a":"<\/p> Apps\/APIs","b":"We\u2019re caf\u00e9 \ud83d\ude80"}`,
    );
  });

  it('keeps backslashes distinct from escaped slashes', () => {
    const text = encodePhpJson(['a\\/b']);
    expect(text).toBe(String.raw`["a\\\/b"]`);
    expect(JSON.parse(text)).toEqual(['a\\/b']);
  });
});

describe('vendor timestamps', () => {
  it('uses -08:00 in winter and -07:00 in summer', () => {
    expect(formatVendorTime(Date.UTC(2026, 0, 15, 20, 0, 0))).toBe('2026-01-15T12:00:00-08:00');
    expect(formatVendorTime(Date.UTC(2026, 6, 15, 19, 0, 0))).toBe('2026-07-15T12:00:00-07:00');
  });

  it('switches exactly at the DST transitions', () => {
    expect(formatVendorTime(Date.UTC(2026, 2, 8, 9, 59, 59))).toBe('2026-03-08T01:59:59-08:00');
    expect(formatVendorTime(Date.UTC(2026, 2, 8, 10, 0, 0))).toBe('2026-03-08T03:00:00-07:00');
    expect(formatVendorTime(Date.UTC(2026, 10, 1, 8, 30, 0))).toBe('2026-11-01T01:30:00-07:00');
    expect(formatVendorTime(Date.UTC(2026, 10, 1, 9, 30, 0))).toBe('2026-11-01T01:30:00-08:00');
  });

  it('drops milliseconds and round-trips through the parser', () => {
    const ms = Date.UTC(2026, 9, 1, 12, 39, 35, 987);
    expect(formatVendorTime(ms)).toBe('2026-10-01T05:39:35-07:00');
    expect(parseVendorTime(formatVendorTime(ms))?.ms).toBe(Date.UTC(2026, 9, 1, 12, 39, 35));
  });
});

const WIRE_INCIDENT = incident({
  id: 1577,
  title: 'Files & canvases\u2019 previews',
  status: 'active',
  url: 'https://slack-status.com/2026-07/0123456789abcdef',
  services: ['Apps/Integrations/APIs'],
  date_created: '2026-07-15T09:00:00-07:00',
  date_updated: '2026-07-15T10:30:00-07:00',
  notes: [
    { body: '<p>Fixed&nbsp;</p>', date_created: '2026-07-15T10:30:00-07:00' },
    { body: '<p>We\u2019re on it \u{1F680}</p>', date_created: '2026-07-15T09:00:00-07:00' },
  ],
});

describe('wire bytes over HTTP', () => {
  it('modern style: 2026 key order, notes oldest first, PHP escaping, one line', async () => {
    const sim = await startSim();
    await setClock(sim, SUMMER_NOON_MS);
    await putIncidents(sim, [WIRE_INCIDENT]);
    const res = await fetch(`${sim.url}/api/v2.0.0/history`);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe(
      String.raw`[{"id":1577,"title":"Files & canvases\u2019 previews","type":"incident","status":"active","url":"https:\/\/slack-status.com\/2026-07\/0123456789abcdef","date_created":"2026-07-15T09:00:00-07:00","date_updated":"2026-07-15T10:30:00-07:00","notes":[{"body":"<p>We\u2019re on it \ud83d\ude80<\/p>","date_created":"2026-07-15T09:00:00-07:00"},{"body":"<p>Fixed&nbsp;<\/p>","date_created":"2026-07-15T10:30:00-07:00"}],"services":["Apps\/Integrations\/APIs"]}]`,
    );
  });

  it('legacy style: 2019–2023 key order, notes newest first', async () => {
    const sim = await startSim({ style: 'legacy' });
    await setClock(sim, SUMMER_NOON_MS);
    await putIncidents(sim, [WIRE_INCIDENT]);
    const text = await (await fetch(`${sim.url}/api/v2.0.0/history`)).text();
    expect(text).toBe(
      String.raw`[{"id":1577,"date_created":"2026-07-15T09:00:00-07:00","date_updated":"2026-07-15T10:30:00-07:00","title":"Files & canvases\u2019 previews","type":"incident","status":"active","url":"https:\/\/slack-status.com\/2026-07\/0123456789abcdef","services":["Apps\/Integrations\/APIs"],"notes":[{"date_created":"2026-07-15T10:30:00-07:00","body":"<p>Fixed&nbsp;<\/p>"},{"date_created":"2026-07-15T09:00:00-07:00","body":"<p>We\u2019re on it \ud83d\ude80<\/p>"}]}]`,
    );
  });

  it('v1 and v2 history bodies are byte-identical; v1 current sends id as a string', async () => {
    const sim = await startSim();
    await setClock(sim, SUMMER_NOON_MS);
    await putIncidents(sim, [WIRE_INCIDENT]);
    const v2 = await (await fetch(`${sim.url}/api/v2.0.0/history`)).text();
    expect(await (await fetch(`${sim.url}/api/v1.0.0/history`)).text()).toBe(v2);
    expect(await (await fetch(`${sim.url}/api/history`)).text()).toBe(v2);
    const v1 = await (await fetch(`${sim.url}/api/v1.0.0/current`)).text();
    expect(v1.startsWith('{"id":"1577","title":')).toBe(true);
  });
});

describe('formatVendorTime around daylight-saving changes', () => {
  // An independent reference: the wall clock and offset Intl gives for each instant.
  const reference = (ms: number) => {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', {
        timeZone: 'America/Los_Angeles',
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        timeZoneName: 'longOffset',
      })
        .formatToParts(new Date(ms))
        .map((p) => [p.type, p.value]),
    );
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${String(parts.timeZoneName).replace('GMT', '')}`;
  };

  it('agrees with Intl every ten minutes across a spring and an autumn change', () => {
    const DAY_MS = 86_400_000;
    for (const day of [Date.UTC(2026, 2, 8), Date.UTC(2026, 10, 1)]) {
      for (let ms = day - DAY_MS; ms < day + 2 * DAY_MS; ms += 10 * 60_000) expect(formatVendorTime(ms), String(ms)).toBe(reference(ms));
    }
  });
});
