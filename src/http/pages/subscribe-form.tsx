/** The email sign-up form and the form that changes a subscription: services, kinds of incident, time zone. */
import { VENDOR_SERVICES } from '../../core/service-days.ts';
import { DEFAULT_TIME_ZONE } from '../../core/subscription.ts';
import { KNOWN_TYPES } from './incident-filters.tsx';

/** What the reader chose, as submitted: the form shows it back as it came. */
export type ChoiceValues = { services: string[]; types: string[]; timeZone: string };
export type SubscribeValues = ChoiceValues & { email: string };

export type FieldName = 'email' | 'services' | 'types' | 'timeZone';
export type FieldErrors = Partial<Record<FieldName, string>>;

/** Where the error summary sends the reader for each field: the control itself, or a group's first box. */
const FIELD_TARGETS: Record<FieldName, string> = {
  email: 'sub-email',
  services: 'sub-service-0',
  types: 'sub-type-0',
  timeZone: 'sub-timezone',
};

const TYPE_LABELS: Record<string, string> = {
  outage: 'Outages',
  incident: 'Incidents',
  notice: 'Notices (maintenance and announcements)',
};

/**
 * Every zone this runtime knows, UTC first. A select rather than free text: keyboard type-ahead
 * finds "Europe/Berlin" quickly, and nothing can be misspelt. public/app.js picks the browser's.
 */
const TIME_ZONES: readonly string[] = [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf('timeZone').filter((z) => z !== DEFAULT_TIME_ZONE)];

export const emptyChoices = (): ChoiceValues => ({ services: [], types: [], timeZone: DEFAULT_TIME_ZONE });

/** The list of problems above a form, each a link to its field (what screen readers announce first). */
export function ErrorSummary(props: { errors: FieldErrors }) {
  const entries = (Object.keys(FIELD_TARGETS) as FieldName[]).filter((name) => props.errors[name]);
  if (entries.length === 0) return null;
  return (
    <div class="error-summary" role="alert" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">Please fix {entries.length === 1 ? 'this' : 'these'} first</h2>
      <ul>
        {entries.map((name) => (
          <li>
            <a href={`#${FIELD_TARGETS[name]}`}>{props.errors[name]}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

function FieldError(props: { id: string; message: string | undefined }) {
  return props.message ? (
    <p id={props.id} class="field-error">
      <span class="visually-hidden">Error: </span>
      {props.message}
    </p>
  ) : null;
}

type BoxesProps = {
  /** The form field's name: `service`, `type`, or in the admin's form `event`. */
  name: string;
  idPrefix: string;
  legend: string;
  hint: string;
  options: readonly string[];
  chosen: string[];
  label: (value: string) => string;
  error: string | undefined;
};

/** A group of checkboxes: none ticked means everything, as an empty filter does. */
export function Boxes(props: BoxesProps) {
  // Values set elsewhere (by an admin, or a service the vendor has since renamed) stay visible and kept.
  const options = [...props.options, ...props.chosen.filter((v) => !props.options.includes(v))];
  const hintId = `${props.idPrefix}-hint`;
  const errorId = `${props.idPrefix}-error`;
  return (
    <fieldset class="choices" aria-describedby={props.error ? `${hintId} ${errorId}` : hintId}>
      <legend>{props.legend}</legend>
      <p id={hintId} class="hint">
        {props.hint}
      </p>
      <FieldError id={errorId} message={props.error} />
      <div class="checkbox-grid">
        {options.map((value, i) => (
          <div class="checkbox">
            <input
              type="checkbox"
              id={`${props.idPrefix}-${i}`}
              name={props.name}
              value={value}
              checked={props.chosen.includes(value)}
              aria-invalid={props.error ? true : undefined}
            />
            <label for={`${props.idPrefix}-${i}`}>{props.label(value)}</label>
          </div>
        ))}
      </div>
    </fieldset>
  );
}

/** Services, kinds and time zone: shared by the sign-up and the manage forms. */
/** `suggestZone`: public/app.js may pick the browser's zone; only on a fresh sign-up form, never over a saved or typed choice. */
export function ChoiceFields(props: { values: ChoiceValues; errors: FieldErrors; suggestZone?: boolean }) {
  const { values, errors } = props;
  const zones = TIME_ZONES.includes(values.timeZone) || values.timeZone === '' ? TIME_ZONES : [values.timeZone, ...TIME_ZONES];
  return (
    <>
      <Boxes
        name="service"
        idPrefix="sub-service"
        legend="Services"
        hint="Tick the services you care about. Leave all unticked to hear about every service, including ones added later."
        options={VENDOR_SERVICES}
        chosen={values.services}
        label={(v) => v}
        error={errors.services}
      />
      <Boxes
        name="type"
        idPrefix="sub-type"
        legend="Kinds of incident"
        hint="Leave all unticked to hear about every kind."
        options={KNOWN_TYPES}
        chosen={values.types}
        label={(v) => TYPE_LABELS[v] ?? v}
        error={errors.types}
      />
      <div class="field">
        <label for="sub-timezone">Time zone for times in emails</label>
        <select
          id="sub-timezone"
          name="timezone"
          data-browser-zone={props.suggestZone ? '' : undefined}
          aria-describedby={errors.timeZone ? 'sub-timezone-error' : undefined}
          aria-invalid={errors.timeZone ? true : undefined}
        >
          {zones.map((zone) => (
            <option value={zone} selected={zone === values.timeZone}>
              {zone.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
        <FieldError id="sub-timezone-error" message={errors.timeZone} />
      </div>
    </>
  );
}

/** `novalidate`: the server's messages, in the summary and by each field, are the one way errors read. */
export function SubscribeForm(props: { values: SubscribeValues; errors: FieldErrors; fresh: boolean }) {
  const { values, errors } = props;
  return (
    <form method="post" action="/subscribe" class="form-stack" novalidate>
      <div class="field">
        <label for="sub-email">Email address</label>
        <input
          type="email"
          id="sub-email"
          name="email"
          value={values.email}
          required
          maxlength={254}
          autocomplete="email"
          spellcheck={false}
          aria-describedby={errors.email ? 'sub-email-hint sub-email-error' : 'sub-email-hint'}
          aria-invalid={errors.email ? true : undefined}
        />
        <p id="sub-email-hint" class="hint">
          We send a link to this address; nothing else is sent until you open it.
        </p>
        <FieldError id="sub-email-error" message={errors.email} />
      </div>
      <ChoiceFields values={values} errors={errors} suggestZone={props.fresh} />
      <div class="actions">
        <button type="submit">Subscribe</button>
      </div>
    </form>
  );
}

/** The manage form, then a separate one to leave altogether: two actions, two forms, no guessing. */
export function ManageForm(props: { token: string; values: ChoiceValues; errors: FieldErrors }) {
  return (
    <>
      <form method="post" action="/manage" class="form-stack" novalidate>
        <input type="hidden" name="token" value={props.token} />
        <ChoiceFields values={props.values} errors={props.errors} />
        <div class="actions">
          <button type="submit">Save changes</button>
        </div>
      </form>
      <form method="post" action="/manage/unsubscribe" class="form-stack danger-zone" aria-labelledby="leave-title">
        <h2 id="leave-title">Stop all emails</h2>
        <input type="hidden" name="token" value={props.token} />
        <p>Unsubscribing deletes this subscription at once. You can sign up again at any time.</p>
        <div class="actions">
          <button type="submit" class="button-danger">
            Unsubscribe
          </button>
        </div>
      </form>
    </>
  );
}
