/**
 * The vendor's date formatting token, `<!date^EPOCH^FORMAT(^LINK)?|FALLBACK>`, as its clients show
 * it: the instant in the reader's own zone. The page renders it in UTC on the server, and its own
 * script (the same function, sent as source) renders it again in the viewer's zone: no request
 * leaves the page.
 */

/** The token in a mrkdwn text; the fallback ends at the first `>`, as the vendor parses it. */
export const DATE_TOKEN = /<!date\^(\d{1,12})\^([^^|>]{0,200})(?:\^[^|>]*)?\|([^>]*)>/g;

export type DateToken = { epochSeconds: number; format: string; fallback: string };

/**
 * `format` with its `{tokens}` filled for the instant in `timeZone` (the runtime's own when
 * undefined), as the vendor's clients fill them; an unknown token stays as written.
 * Self-contained: its source runs in the page as it is, so it names nothing outside itself.
 */
export function formatDateToken(epochSeconds: number, format: string, timeZone: string | undefined, nowMs: number): string {
  const ms = epochSeconds * 1000;
  const part = (at: number, options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-US', { timeZone, ...options }).format(new Date(at));
  const day = Number(part(ms, { day: 'numeric' }));
  const tens = day % 100;
  const ordinal = `${day}${tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][day % 10] ?? 'th')}`;
  const month = part(ms, { month: 'long' });
  const year = part(ms, { year: 'numeric' });
  const dayKey = (at: number) => part(at, { year: 'numeric', month: '2-digit', day: '2-digit' });
  const relative = (plain: string) => {
    const key = dayKey(ms);
    if (key === dayKey(nowMs)) return 'today';
    if (key === dayKey(nowMs - 86_400_000)) return 'yesterday';
    if (key === dayKey(nowMs + 86_400_000)) return 'tomorrow';
    return plain;
  };
  const date = `${month} ${ordinal}, ${year}`;
  const dateShort = part(ms, { month: 'short', day: 'numeric', year: 'numeric' });
  const dateLong = `${part(ms, { weekday: 'long' })}, ${date}`;
  const agoSeconds = Math.round((nowMs - ms) / 1000);
  const steps: [number, Intl.RelativeTimeFormatUnit][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, unit] = steps.find(([s]) => Math.abs(agoSeconds) >= s) ?? [1, 'second'];
  const filled: Record<string, string> = {
    date_num: `${year}-${part(ms, { month: '2-digit' })}-${part(ms, { day: '2-digit' })}`,
    date,
    date_short: dateShort,
    date_long: dateLong,
    date_pretty: relative(date),
    date_short_pretty: relative(dateShort),
    date_long_pretty: relative(dateLong),
    time: part(ms, { hour: 'numeric', minute: '2-digit' }),
    time_secs: part(ms, { hour: 'numeric', minute: '2-digit', second: '2-digit' }),
    ago: new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' }).format(-Math.trunc(agoSeconds / size), unit),
  };
  return format.replace(/\{(\w+)\}/g, (whole, name: string) => filled[name] ?? whole);
}

/**
 * When the sources run through tsx (a checkout whose dist/ is stale), esbuild keeps function
 * names by wrapping functions in `__name(fn, "name")`, and the source above then calls a helper
 * the page does not have: the page gets one that hands the function back.
 */
const KEEP_NAMES_SHIM = 'var __name=function(f){return f};';

/**
 * The page's script: every `<time data-date-format>` shown again in the viewer's zone. Its text
 * holds no outside value (the format travels in an attribute), so it cannot be broken out of.
 */
export const LOCAL_TIME_SCRIPT = `(function(){${KEEP_NAMES_SHIM}var formatDateToken=${formatDateToken.toString()};
document.querySelectorAll('time[data-date-format]').forEach(function(t){var s=Number(t.getAttribute('data-epoch'));if(!isFinite(s))return;
t.textContent=formatDateToken(s,t.getAttribute('data-date-format')||'',undefined,Date.now());t.setAttribute('data-zone','local');});})();`;
