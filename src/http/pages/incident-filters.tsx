/** The filter and search form of `/incidents`: a plain GET form, so it works without scripts. */
import { statusWord } from '../../core/notification-message.ts';
import { DOCUMENTED_SERVICES } from '../../core/known-services.ts';

/** What the reader asked for, as typed: the form shows it back as it came. */
export type IncidentQuery = {
  q: string;
  services: string[];
  types: string[];
  statuses: string[];
  since: string;
  until: string;
  /** One source's incidents (`?source=`, from a watched page's own page); empty for every source. Kept across searches. */
  source: string;
};

/**
 * The vendor's current services, then the names only past incidents use (developer-interface.md).
 * Services beyond these still filter by URL (`?service=`); the form adds them when asked for.
 */
export const KNOWN_SERVICES: readonly string[] = DOCUMENTED_SERVICES;
export const KNOWN_TYPES: readonly string[] = ['outage', 'incident', 'notice'];
export const KNOWN_STATUSES: readonly string[] = ['active', 'resolved', 'scheduled', 'completed', 'cancelled'];

type ChoiceProps = {
  id: string;
  name: string;
  label: string;
  any: string;
  known: readonly string[];
  chosen: string[];
  /** How a value reads: types and statuses arrive lower-cased, service names as the vendor spells them. */
  show?: (value: string) => string;
};

function Choice(props: ChoiceProps) {
  const show = props.show ?? ((value: string) => value);
  const options = [...props.known, ...props.chosen.filter((v) => !props.known.includes(v))];
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name}>
        <option value="">{props.any}</option>
        {options.map((value) => (
          <option value={value} selected={props.chosen.includes(value)}>
            {show(value)}
          </option>
        ))}
      </select>
    </div>
  );
}

export function IncidentFilters(props: { query: IncidentQuery }) {
  const { query } = props;
  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is too new for some browsers; role=search on the form means the same
    <form method="get" action="/incidents" class="filters" role="search" aria-label="Filter incidents">
      {query.source ? <input type="hidden" name="source" value={query.source} /> : null}
      <div class="field field-wide">
        <label for="f-q">Search titles and notes</label>
        <input type="search" id="f-q" name="q" value={query.q} maxlength={200} />
      </div>
      <Choice id="f-service" name="service" label="Service" any="Any service" known={KNOWN_SERVICES} chosen={query.services} />
      <Choice id="f-type" name="type" label="Type" any="Any type" known={KNOWN_TYPES} chosen={query.types} show={statusWord} />
      <Choice id="f-status" name="status" label="Status" any="Any status" known={KNOWN_STATUSES} chosen={query.statuses} show={statusWord} />
      <div class="field">
        <label for="f-since">From</label>
        <input type="date" id="f-since" name="since" value={query.since} aria-describedby="f-dates-hint" />
      </div>
      <div class="field">
        <label for="f-until">Before</label>
        <input type="date" id="f-until" name="until" value={query.until} aria-describedby="f-dates-hint" />
      </div>
      <p id="f-dates-hint" class="hint">
        Dates are UTC, on when an incident started; “Before” is not included.
      </p>
      <div class="actions">
        <button type="submit">Show incidents</button> <a href="/incidents">Clear filters</a>
      </div>
    </form>
  );
}
