/** The vendor's track record: `/api/reliability` (JSON) and `/reliability` (the same figures, charted and tabled). */
import { type Context, Hono } from 'hono';
import { raw } from 'hono/html';
import {
  percentFloor,
  percentText,
  AVAILABILITY_WINDOWS_DAYS,
  PARTIAL_OUTAGE_WEIGHT,
  type Distribution,
  type MonthFigures,
  type Reliability,
  type WindowAvailability,
} from '../../core/reliability.ts';
import { countAxis, durationAxis, horizontalBarChart, lineChart, stackedColumnChart, type ChartSeries } from '../../core/svg-chart.ts';
import { iso } from '../api-json.ts';
import { reliabilityFigures, type ReliabilityStore, type SourceReliabilityStore, sourceReliability } from '../../app/reliability-figures.ts';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { sourceParam } from '../query-params.ts';
import type { AppDeps } from '../deps.ts';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';
import { durationText, Time } from '../pages/time.tsx';

const MINUTE_MS = 60_000;
const WEIGHT_PERCENT = Math.round(PARTIAL_OUTAGE_WEIGHT * 100);
export function reliabilityRoutes(deps: Pick<AppDeps, 'clock' | 'assets'> & { store: ReliabilityStore & SourceReliabilityStore }) {
  const { store, clock } = deps;
  const app = new Hono();
  const figures = reliabilityFigures(store, clock);

  /** The vendor's figures, or with `?source=` a watched page's (404 when there is none), and the page's name. */
  const figuresFor = async (c: Context): Promise<{ figures: Reliability; source: { id: string; name: string } | null }> => {
    const asked = sourceParam(c);
    if (asked === undefined || asked === MAIN_FEED_SOURCE) return { figures: await figures(), source: null };
    const found = await sourceReliability(store, asked, clock.now());
    return { figures: found.figures, source: { id: found.source.id, name: found.source.name } };
  };

  app.get('/api/reliability', async (c) => {
    const { figures, source } = await figuresFor(c);
    return c.json({ ...toApiReliability(figures), ...(source ? { source } : {}) });
  });

  const page = pageResponder(deps.assets);
  app.get('/reliability', pageSecurity(), async (c) => {
    const { figures, source } = await figuresFor(c);
    return page(c, source ? `Reliability of ${source.name}` : 'Reliability', <ReliabilityPage figures={figures} source={source} />);
  });

  return app;
}

/** Durations in ms, instants in ISO 8601 UTC, availability as a percentage (and the exact ratio). */
export function toApiReliability(r: Reliability) {
  const distribution = (d: Distribution) => ({ count: d.count, median_ms: d.medianMs, p90_ms: d.p90Ms });
  return {
    ok: true,
    generated_at: iso(r.nowMs),
    availability: {
      method:
        `outage: down for its whole duration; incident: partial outage counted at ${WEIGHT_PERCENT}% (as Atlassian Statuspage does); ` +
        'notice: not downtime. Overlaps merged per service; ongoing incidents count until now; rolling windows ending now. ' +
        'Time without data (before the archive began, or while the feed could not be read) counts neither way: availability is over observed_ms, null when there is none.',
      partial_outage_weight: r.partialOutageWeight,
      window_days: AVAILABILITY_WINDOWS_DAYS,
      services: r.services.map((s) => ({
        service: s.service,
        windows: s.windows.map((w) => ({
          days: w.days,
          start_at: iso(w.startMs),
          end_at: iso(w.endMs),
          // null: no data for the whole window (before the archive began, or blind).
          availability: w.availability,
          availability_percent: w.availability === null ? null : percentFloor(w.availability),
          observed_ms: w.observedMs,
          downtime_ms: Math.round(w.downtimeMs),
          outage_ms: w.outageMs,
          partial_ms: w.partialMs,
          incidents: w.incidents,
        })),
      })),
    },
    months: r.months.map((m) => ({
      month: m.month,
      start_at: iso(m.startMs),
      end_at: iso(m.endMs),
      // 0: no data for the month (before the archive began, or blind): its zeros are not a record.
      observed_ms: m.observedMs,
      incidents: m.incidents,
      time_to_resolve: { ...distribution(m.timeToResolve), ongoing: m.timeToResolve.ongoing },
      time_to_first_update: distribution(m.timeToFirstUpdate),
      detection_lag: distribution(m.detectionLag),
    })),
  };
}

/** Seconds matter for our detection lag (we poll every minute); minutes and more for the vendor's figures. */
function durationFigure(ms: number): string {
  return ms < MINUTE_MS ? `${Math.round(ms / 1000)} s` : durationText(ms);
}

function durationSeries(months: MonthFigures[], pick: (m: MonthFigures) => Distribution): ChartSeries[] {
  return [
    { name: 'Median', tone: '0', values: months.map((m) => pick(m).medianMs) },
    { name: '90th percentile', tone: '1', values: months.map((m) => pick(m).p90Ms) },
  ];
}

/** What a figure says when the archive saw none of its time: no data, never zero or "none". */
const NO_DATA_TEXT = 'No data: the archive has not seen any of this time (the vendor’s feed was not read).';

function DurationChart(props: {
  id: string;
  title: string;
  description: string;
  /** Why there may be no figures at all yet. */
  empty: string;
  months: MonthFigures[];
  pick: (m: MonthFigures) => Distribution;
}) {
  // An empty chart and a table of dashes would say nothing: say why instead.
  if (props.months.every((m) => m.observedMs === 0)) return <p class="muted chart-empty">{NO_DATA_TEXT}</p>;
  if (props.months.every((m) => props.pick(m).count === 0)) return <p class="muted chart-empty">{props.empty}</p>;
  return raw(
    lineChart({
      id: props.id,
      title: props.title,
      description: `${props.description} A dash in the table: no incident that month had this figure.`,
      categories: props.months.map((m) => m.month),
      categoryName: 'Month (UTC)',
      series: durationSeries(props.months, props.pick),
      format: durationFigure,
      axis: durationAxis,
      tableOnly: [{ name: 'Incidents counted', values: props.months.map((m) => String(props.pick(m).count)) }],
    }),
  );
}

function AvailabilityTable(props: { services: Reliability['services'] }) {
  const cell = (w: WindowAvailability | undefined) =>
    w ? (
      <>
        <td>{percentText(w.availability)}</td>
        <td>{w.availability === null ? 'no data' : w.downtimeMs === 0 ? 'none' : durationFigure(w.downtimeMs)}</td>
      </>
    ) : (
      <>
        <td>—</td>
        <td>—</td>
      </>
    );
  return (
    // It scrolls sideways on a phone: a keyboard can reach it and scroll it, and it is named.
    <section class="chart-table-wrap" tabindex={0} aria-label="Availability table, scrolls sideways">
      <table class="chart-table">
        <caption>Availability by service, with downtime as counted ({WEIGHT_PERCENT}% of the time under an incident)</caption>
        <thead>
          <tr>
            <th scope="col">Service</th>
            {AVAILABILITY_WINDOWS_DAYS.map((days) => (
              <>
                <th scope="col">{days} days</th>
                <th scope="col">Downtime, {days} days</th>
              </>
            ))}
            <th scope="col">Incidents, {Math.max(...AVAILABILITY_WINDOWS_DAYS)} days</th>
          </tr>
        </thead>
        <tbody>
          {props.services.map((s) => (
            <tr>
              <th scope="row">{s.service}</th>
              {AVAILABILITY_WINDOWS_DAYS.map((days) => cell(s.windows.find((w) => w.days === days)))}
              <td>{(s.windows.at(-1)?.observedMs ?? 0) > 0 ? (s.windows.at(-1)?.incidents ?? 0) : 'no data'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function DowntimeChart(props: { services: Reliability['services'] }) {
  // Rows of no downtime drew empty lines: most services, most months. The table lists every service.
  const down = props.services.filter((s) => s.windows.some((w) => w.downtimeMs > 0));
  if (props.services.every((s) => s.windows.every((w) => w.observedMs === 0))) return <p class="muted chart-empty">{NO_DATA_TEXT}</p>;
  if (down.length === 0) return <p class="muted chart-empty">No service had downtime in the last {Math.max(...AVAILABILITY_WINDOWS_DAYS)} days.</p>;
  return raw(
    horizontalBarChart({
      id: 'chart-downtime',
      title: 'Downtime by service',
      description:
        `Counted downtime of each service over the last ${AVAILABILITY_WINDOWS_DAYS.join(' and ')} days: ` +
        `outages in full, incidents at ${WEIGHT_PERCENT}%. Longer bars mean less availability. Services without downtime are left out; ` +
        'the figures of every service are in the availability table.',
      categories: down.map((s) => s.service),
      categoryName: 'Service',
      series: AVAILABILITY_WINDOWS_DAYS.map((days, i) => ({
        name: `Last ${days} days`,
        // Not the medians' colours: a window is not a percentile.
        tone: i === 0 ? '2' : '3',
        values: down.map((s) => {
          const w = s.windows.find((x) => x.days === days);
          return w ? w.downtimeMs : null;
        }),
      })),
      format: durationFigure,
      axis: durationAxis,
      table: false,
    }),
  );
}

function IncidentsChart(props: { months: MonthFigures[] }) {
  const { months } = props;
  if (months.every((m) => m.observedMs === 0)) return <p class="muted chart-empty">{NO_DATA_TEXT}</p>;
  // A month the archive saw none of has no count, not a count of 0: a dash in the table.
  const count = (pick: (counts: MonthFigures['incidents']) => number) => months.map((m) => (m.observedMs > 0 ? pick(m.incidents) : null));
  const series: ChartSeries[] = [
    { name: 'Outage', tone: 'outage', values: count((c) => c.outage) },
    { name: 'Incident', tone: 'incident', values: count((c) => c.incident) },
    { name: 'Notice', tone: 'notice', values: count((c) => c.notice) },
  ];
  // Types the vendor does not document have never been seen; a column for them only when one was.
  if (months.some((m) => m.incidents.other > 0)) series.push({ name: 'Other type', tone: 'other', values: count((c) => c.other) });
  return raw(
    stackedColumnChart({
      id: 'chart-incidents',
      title: 'Incidents per month, by type',
      description:
        'Incidents the vendor opened each UTC month of the last twelve, stacked by type, the current month last. A dash in the table: no data for that month (before the archive began).',
      categories: months.map((m) => m.month),
      categoryName: 'Month (UTC)',
      series,
      format: (value) => String(value),
      axis: countAxis,
    }),
  );
}

export function ReliabilityPage(props: { figures: Reliability; source?: { id: string; name: string } | null }) {
  const { services, months, nowMs } = props.figures;
  const { source } = props;
  const api = source ? `/api/reliability?source=${encodeURIComponent(source.id)}` : '/api/reliability';
  return (
    <>
      <h1>{source ? `Reliability of ${source.name}` : 'Reliability'}</h1>
      <p>
        {source ? (
          <>
            The track record of the status page <a href={`/sources/${encodeURIComponent(source.id)}`}>{source.name}</a> since statuswatch began watching it
          </>
        ) : (
          "The vendor's track record"
        )}{' '}
        as this archive recorded it, as of <Time ms={nowMs} />. The same figures are at <a href={api}>{api}</a>.
      </p>

      <section aria-labelledby="availability-title">
        <h2 id="availability-title">Availability by service</h2>
        <p>
          Over the last {AVAILABILITY_WINDOWS_DAYS.join(' and ')} days, ending now. An <strong>outage</strong> counts as down for its whole duration; an{' '}
          <strong>incident</strong> counts as a partial outage, at {WEIGHT_PERCENT}% of its duration, the weight Atlassian Statuspage gives a partial outage; a{' '}
          <strong>notice</strong> is not downtime.
        </p>
        <AvailabilityTable services={services} />
        <h3>Downtime by service</h3>
        <DowntimeChart services={services} />
      </section>

      <section aria-labelledby="incidents-title">
        <h2 id="incidents-title">Incidents per month</h2>
        <IncidentsChart months={months} />
      </section>

      <section aria-labelledby="resolve-title">
        <h2 id="resolve-title">Time to resolve</h2>
        <DurationChart
          id="chart-resolve"
          title="Time to resolve, per month"
          description="From the vendor's start of each incident to its resolution, median and 90th percentile of the incidents opened that month and resolved since."
          months={months}
          empty="No incident of these months has been resolved yet."
          pick={(m) => m.timeToResolve}
        />
      </section>

      <section aria-labelledby="first-update-title">
        <h2 id="first-update-title">Time to the vendor's first update</h2>
        <DurationChart
          id="chart-first-update"
          title="Time to the vendor's first update, per month"
          description="From the start of each incident to the first note the vendor posted after its opening announcement, median and 90th percentile."
          months={months}
          empty="No incident of these months has had an update after its opening note."
          pick={(m) => m.timeToFirstUpdate}
        />
      </section>

      <section aria-labelledby="detection-title">
        <h2 id="detection-title">Our detection lag</h2>
        <DurationChart
          id="chart-detection"
          title="Detection lag, per month"
          description="From the start of each incident, as the vendor dates it, to the poll in which statuswatch first saw it, median and 90th percentile."
          months={months}
          empty="No figures yet: every incident so far was recorded while the archive was first filled from the vendor's history, when there was nothing to detect."
          pick={(m) => m.detectionLag}
        />
      </section>

      <section aria-labelledby="method-title">
        {/* Folded: the method is read once, the figures often; open it was a quarter of the page. */}
        <details class="method-details">
          <summary>
            <h2 id="method-title">How these figures are computed</h2>
          </summary>
          <dl class="method">
            <dt>Availability</dt>
            <dd>
              1 minus the downtime over the window's length. Downtime is the time under an outage plus {WEIGHT_PERCENT}% of the time under an incident but no
              outage. Incidents of one service that overlap are merged, so no minute counts twice, and a minute under both an outage and an incident counts as
              outage. Incidents still going on count until now. An incident that names several services counts against each; one that names none counts in the
              monthly figures but against no service. Percentages are rounded down, so a service that was down at all never reads 100%.
            </dd>
            <dt>Months</dt>
            <dd>
              An incident belongs to the UTC month of its start (the vendor's <code>date_created</code>). Medians and 90th percentiles interpolate between the
              two nearest incidents. The archive knows what the vendor's history showed when it was started (about six months) and everything since: earlier
              months show no data, a dash, not zero.
            </dd>
            <dt>Time to resolve</dt>
            <dd>
              From <code>date_created</code> to the resolution: the vendor's time on the version that first showed the incident resolved, or, for incidents
              first seen already resolved, the time of their last note. Incidents still going on are left out.
            </dd>
            <dt>First update</dt>
            <dd>
              The vendor posts an opening note stamped with the incident's own start time; the first update is the earliest note after that. Incidents with no
              later note are left out.
            </dd>
            <dt>Detection lag</dt>
            <dd>
              From <code>date_created</code> to the poll in which statuswatch first saw the incident. Incidents recorded while the archive was first filled from
              the vendor's history are left out: we saw them late because we did not exist yet. The vendor's clock and ours differ by a little; a first sighting
              a few seconds before the vendor's start time counts as no lag.
            </dd>
          </dl>
        </details>
      </section>
    </>
  );
}
