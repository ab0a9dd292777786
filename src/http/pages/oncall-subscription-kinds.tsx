/**
 * The admin form's PagerDuty and Opsgenie kinds. The key is a secret: the field is never filled
 * from a saved subscription, and left empty while editing it keeps the sealed key.
 */
import { OPSGENIE_REGIONS, opsgenieRegionOf } from '../../core/subscription.ts';
import { type FormFields, first, type SubscriptionFormKind } from './subscription-kinds.tsx';

function KeyField(props: { name: 'routing_key' | 'api_key'; label: string; hint: string; editing: boolean }) {
  const id = `as-${props.name.replace('_', '-')}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        type="password"
        id={id}
        name={props.name}
        value=""
        required={!props.editing}
        maxlength={200}
        spellcheck={false}
        autocomplete="off"
        aria-describedby={`${id}-hint`}
      />
      <p id={`${id}-hint`} class="hint">
        {props.hint} {props.editing ? 'Leave it empty to keep the key it has.' : 'It is stored sealed and never shown again.'}
      </p>
    </div>
  );
}

/** The key only when one was typed: an edit without one keeps the sealed key. */
function keyPart(fields: FormFields, name: 'routing_key' | 'api_key', editing: boolean): Record<string, string> {
  const key = first(fields, name);
  return editing && key.trim() === '' ? {} : { [name]: key };
}

export const pagerdutyKind: SubscriptionFormKind = {
  channel: 'pagerduty',
  label: 'PagerDuty',
  summary: 'Pages on-call: one alert per incident (Events API v2), resolved when the incident is.',
  fields: ({ editing }) => (
    <KeyField
      name="routing_key"
      label="Integration key (routing key)"
      editing={editing !== null}
      hint="From an Events API v2 integration on the PagerDuty service that should be paged."
    />
  ),
  requestBody: (fields, editing) => keyPart(fields, 'routing_key', editing !== null),
  fieldsOf: () => ({}),
};

export const opsgenieKind: SubscriptionFormKind = {
  channel: 'opsgenie',
  label: 'Opsgenie',
  summary: 'Pages on-call: one alert per incident (Alert API), a note per change, closed when the incident is.',
  fields: ({ fields, editing }) => {
    const chosen = first(fields, 'region') || 'us';
    return (
      <>
        <KeyField
          name="api_key"
          label="API key"
          editing={editing !== null}
          hint="The key of an API integration in Opsgenie (one that may create and close alerts)."
        />
        <div class="field">
          <label for="as-region">Region</label>
          <select id="as-region" name="region">
            {OPSGENIE_REGIONS.map((region) => (
              <option value={region} selected={region === chosen}>
                {region === 'eu' ? 'EU (api.eu.opsgenie.com)' : 'US (api.opsgenie.com)'}
              </option>
            ))}
          </select>
        </div>
      </>
    );
  },
  requestBody: (fields, editing) => ({ ...keyPart(fields, 'api_key', editing !== null), region: first(fields, 'region') || 'us' }),
  fieldsOf: (s) => ({ region: [opsgenieRegionOf(s.target)] }),
};
