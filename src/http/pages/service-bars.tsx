/** A row of daily bars per service, each day coloured by its worst incident and named in text (public/charts.css). */
import { type DaySeverity, NO_SERVICE_ROW, type ServiceDay, type ServiceDayRow } from '../../core/service-days.ts';
import { SERVICE_STATE_WORDS, type WidgetState } from '../../core/widget-state.ts';
import { plural } from '../../core/plural.ts';
import { percentText } from '../../core/reliability.ts';

/**
 * Incidents a day names; the rest are counted. Thirteen rows of 90 days that each listed every
 * title made `/` 700 KB on a busy archive; the incident list has them all.
 */
export const DAY_INCIDENTS_SHOWN = 3;

/**
 * Days a narrow screen shows, the newest ones (public/charts.css hides the older, `.day:nth-last-child(n + 31)`):
 * 90 bars on a 390 px phone were 2 px hairlines; 30 are about 9 px wide, as the best status pages show them.
 */
export const NARROW_BAR_DAYS = 30;

function moreText(day: ServiceDay): string | null {
  const more = day.incidents.length - DAY_INCIDENTS_SHOWN;
  return more > 0 ? `and ${more} more` : null;
}

/** What a day says to a screen reader and in its tooltip: the date, then each incident with its type. */
export function dayLabel(day: ServiceDay): string {
  if (day.incidents.length === 0) return day.noData ? `${day.date}: no data` : `${day.date}: no incidents`;
  const named = day.incidents.slice(0, DAY_INCIDENTS_SHOWN).map((i) => `${i.title} (${i.type})`);
  const more = moreText(day);
  return `${day.date}: ${[...named, ...(more ? [more] : [])].join('; ')}`;
}

const DAY_KIND_WORDS: Record<DaySeverity, [one: string, many: string]> = {
  outage: ['with an outage', 'with outages'],
  incident: ['with an incident', 'with incidents'],
  notice: ['with a notice', 'with notices'],
};

/**
 * The days of a row, each counted once, under its worst incident (the colour of its bar): "1 day
 * with an outage, 2 with incidents". Days without data are said as such, never as days without incidents.
 */
export function rowSummary(days: ServiceDay[]): string {
  const blank = days.filter((d) => d.noData && d.worst === null).length;
  if (blank === days.length) return 'No data';
  const parts = (['outage', 'incident', 'notice'] as const)
    .map((kind) => [kind, days.filter((d) => d.worst === kind).length] as const)
    .filter(([, n]) => n > 0)
    .map(([kind, n], i) => `${i === 0 ? plural(n, 'day') : n} ${DAY_KIND_WORDS[kind][n === 1 ? 0 : 1]}`);
  const summary = parts.length > 0 ? parts.join(', ') : 'No incidents';
  return blank > 0 ? `${summary}; ${plural(blank, 'day')} without data` : summary;
}

/**
 * Availability as /reliability gives it, to the same precision, and over how many days: on a phone
 * the bars show fewer days than the figure covers.
 */
export function availabilityText(availability: number | null, days: number): string {
  return availability === null ? `availability over ${days} days: no data` : `${percentText(availability)} available over ${days} days`;
}

/**
 * One tab stop per row, on its newest day (a roving tabindex): 13 rows of 90 focusable days made
 * 1,170 tab stops. public/app.js moves focus across days with the arrow keys, Home and End; each
 * day's aria-label is announced and drawn as its tooltip by public/charts.css, so the text is in the
 * page once. Colour is never the only sign: a touched day is also a taller bar, and the legend and
 * labels say the type in words.
 */
/**
 * Text that depends on how many days show: both versions are in the page, and public/charts.css
 * shows the one the screen's width calls for (a hidden one is not read out either).
 */
export function ByWidth(props: { wide: string | number; narrow: string | number }) {
  return (
    <>
      <span class="bars-wide">{props.wide}</span>
      <span class="bars-narrow">{props.narrow}</span>
    </>
  );
}

/** The row's state now in words (SERVICE_STATE_WORDS), coloured as its kind; the word says it, not the colour alone. */
export function ServiceStateNow(props: { state: WidgetState }) {
  return <span class={`service-state state-now-${props.state}`}>{SERVICE_STATE_WORDS[props.state]}</span>;
}

function rangeText(days: ServiceDay[] | undefined): string {
  return days && days.length > 0 ? `${days[0]!.date} to ${days.at(-1)!.date}, UTC days` : '';
}

/**
 * `now`: each row's state now; `availability`: over the window, a row without one (the row of
 * incidents that name no service) shows none.
 */
export function ServiceBars(props: { rows: ServiceDayRow[]; now: ReadonlyMap<string, WidgetState>; availability: ReadonlyMap<string, number | null> }) {
  const span = props.rows[0]?.days;
  const range = rangeText(span);
  const narrowRange = rangeText(span?.slice(-NARROW_BAR_DAYS));
  return (
    <div class="service-bars">
      <ul class="bar-legend" aria-label="Legend">
        <li>
          <span class="swatch day-none" aria-hidden="true"></span>No incident
        </li>
        <li>
          <span class="swatch day-nodata" aria-hidden="true"></span>No data
        </li>
        <li>
          <span class="swatch day-notice" aria-hidden="true"></span>Notice
        </li>
        <li>
          <span class="swatch day-incident" aria-hidden="true"></span>Incident
        </li>
        <li>
          <span class="swatch day-outage" aria-hidden="true"></span>Outage
        </li>
      </ul>
      <ul class="service-rows">
        {props.rows.map((row, index) => (
          <li class="service-row">
            <div class="service-row-head">
              <span class="service-name" id={`service-bars-${index}`}>
                {row.service}
              </span>
              <ServiceStateNow state={props.now.get(row.service) ?? 'unknown'} />
              {row.service === NO_SERVICE_ROW ? <span class="service-note muted">Incidents that name no single service</span> : null}
              <span class="service-summary">
                {props.availability.has(row.service) ? <>{availabilityText(props.availability.get(row.service) ?? null, row.days.length)} · </> : null}
                <ByWidth wide={rowSummary(row.days)} narrow={rowSummary(row.days.slice(-NARROW_BAR_DAYS))} />
              </span>
            </div>
            <ol class="day-bars" aria-labelledby={`service-bars-${index}`} aria-describedby={range ? 'service-bars-range' : undefined} data-roving-days>
              {row.days.map((day, dayIndex) => (
                <li
                  class={`day day-${day.worst ?? (day.noData ? 'nodata' : 'none')}`}
                  tabindex={dayIndex === row.days.length - 1 ? 0 : -1}
                  aria-label={dayLabel(day)}
                ></li>
              ))}
            </ol>
          </li>
        ))}
      </ul>
      {range ? (
        <p class="bar-range" id="service-bars-range">
          Oldest day on the left: <ByWidth wide={range} narrow={narrowRange} />.
        </p>
      ) : null}
    </div>
  );
}
