/**
 * The admin's subscription forms: create one of any kind (subscription-kinds.tsx), a subscription's
 * own page with its edit form and actions, and the page that shows a new signing secret once.
 */
import type { Child } from 'hono/jsx';
import { EVENT_TYPES } from '../../core/events.ts';
import type { SubscriptionTitle } from '../../core/subscription-title.ts';
import type { StoredSubscription } from '../../core/ports.ts';
import type { SourceChoice } from '../../app/sources.ts';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { DEFAULT_TIME_ZONE, serviceFilterEntry } from '../../core/subscription.ts';
import { CsrfField, PostButton } from './admin-frame.tsx';
import { Boxes, ChoiceFields } from './subscribe-form.tsx';
import { first, SUBSCRIPTION_FORM_KINDS, type FormFields, type SubscriptionFormKind } from './subscription-kinds.tsx';
import { Time } from './time.tsx';
import { originText } from './admin-subscriptions-page.tsx';

/** Filters and time zone as posted: the part of the API's request body every kind shares. */
export function sharedRequestBody(fields: FormFields): Record<string, unknown> {
  const list = (name: string) => {
    const values = [...new Set((fields[name] ?? []).map((v) => v.trim()).filter(Boolean))];
    return values.length > 0 ? values : undefined;
  };
  return {
    filters: {
      services: list('service'),
      types: list('type'),
      events: list('event'),
      monitor: (fields.monitor ?? []).includes('on'),
      sources: list('source'),
    },
    timezone: first(fields, 'timezone').trim() || undefined,
  };
}

/** A saved subscription's filters and zone as the form posts them. */
export function sharedFieldsOf(s: StoredSubscription): FormFields {
  return {
    service: s.filters.services ?? [],
    source: s.filters.sources ?? [],
    type: s.filters.types ?? [],
    event: s.filters.events ?? [],
    monitor: s.filters.monitor ? ['on'] : [],
    timezone: [s.timeZone],
  };
}

/** A fresh form: monitor.* on, as the API makes it for a new subscription. */
export const NEW_SUBSCRIPTION_FIELDS: FormFields = { monitor: ['on'], timezone: [DEFAULT_TIME_ZONE] };

/**
 * Which sources, and which services of each: the main feed's services are the vendor's names
 * (ChoiceFields), a page's are `<source id>:<component>` (serviceFilterEntry), one box per page.
 * Shown only once a page has been added. A chosen service of a page no longer listed stays among
 * the main feed's boxes, visible and kept.
 */
function SourceFields(props: { fields: FormFields; sources: readonly SourceChoice[] }) {
  const { fields, sources } = props;
  if (sources.length === 0) return null;
  const names = new Map([[MAIN_FEED_SOURCE, 'Main feed'], ...sources.map((s) => [s.id, s.name] as const)]);
  return (
    <>
      <Boxes
        name="source"
        idPrefix="as-source"
        legend="Sources"
        hint="Leave all unticked for the main feed alone. A page added later is sent to no one until it is ticked here."
        options={[MAIN_FEED_SOURCE, ...sources.map((s) => s.id)]}
        chosen={fields.source ?? []}
        label={(id) => (names.has(id) ? `${names.get(id)} (${id})` : id)}
        error={undefined}
      />
      {sources.map((source, i) => (
        <Boxes
          name="service"
          idPrefix={`as-source-${i}-service`}
          legend={`Services of ${source.name}`}
          hint={`Leave all unticked for every service of ${source.name}. Applies when ${source.name} is ticked above.`}
          options={source.services.map((service) => `${source.id}:${service}`)}
          chosen={(fields.service ?? []).filter((entry) => serviceFilterEntry(entry).source === source.id)}
          label={(entry) => serviceFilterEntry(entry).service}
          error={undefined}
        />
      ))}
    </>
  );
}

function SharedFields(props: { fields: FormFields; sources: readonly SourceChoice[] }) {
  const { fields, sources } = props;
  const listed = new Set(sources.map((s) => s.id));
  const mainServices = (fields.service ?? []).filter((entry) => !listed.has(serviceFilterEntry(entry).source));
  return (
    <>
      <ChoiceFields values={{ services: mainServices, types: fields.type ?? [], timeZone: first(fields, 'timezone') }} errors={{}} />
      <SourceFields fields={fields} sources={sources} />
      <Boxes
        name="event"
        idPrefix="as-event"
        legend="Updates"
        hint="Leave all unticked for every update about an incident (and the monitor's own news if ticked below)."
        options={EVENT_TYPES}
        chosen={fields.event ?? []}
        label={(v) => v}
        error={undefined}
      />
      <div class="checkbox">
        <input type="checkbox" id="as-monitor" name="monitor" value="on" checked={(fields.monitor ?? []).includes('on')} aria-describedby="as-monitor-hint" />
        <label for="as-monitor">Tell it when the monitor goes blind and when it sees again (monitor.blind, monitor.recovered)</label>
      </div>
      <p id="as-monitor-hint" class="hint">
        Only applies when no updates are ticked above.
      </p>
    </>
  );
}

function FormError(props: { error: string | null }) {
  return props.error ? (
    <div class="error-summary" role="alert">
      <p>{props.error}</p>
    </div>
  ) : null;
}

export type CreatePageData = {
  kind: SubscriptionFormKind;
  kindFields: Child;
  fields: FormFields;
  error: string | null;
  csrf: string;
  sources: readonly SourceChoice[];
};

export function CreateSubscriptionPage(props: { data: CreatePageData }) {
  const { kind, kindFields, fields, error, csrf, sources } = props.data;
  return (
    <>
      <nav aria-label="Kind of subscription" class="kind-picker">
        <ul class="plain-list">
          {SUBSCRIPTION_FORM_KINDS.map((k) => (
            <li>
              <a href={`/admin/new-subscription?channel=${encodeURIComponent(k.channel)}`} aria-current={k === kind ? 'page' : undefined}>
                {k.label}
              </a>
              : {k.summary}
            </li>
          ))}
        </ul>
      </nav>
      <h2 id="create-title">New {kind.label.toLowerCase()} subscription</h2>
      <FormError error={error} />
      <form method="post" action="/admin/new-subscription" class="form-stack" aria-labelledby="create-title" novalidate>
        <CsrfField token={csrf} />
        <input type="hidden" name="channel" value={kind.channel} />
        {kindFields}
        <SharedFields fields={fields} sources={sources} />
        <div class="actions">
          <button type="submit">Create subscription</button> <a href="/admin/subscriptions">Cancel</a>
        </div>
      </form>
    </>
  );
}

export type SubscriptionPageData = {
  subscription: StoredSubscription;
  title: SubscriptionTitle;
  kind: SubscriptionFormKind | undefined;
  kindFields: Child;
  fields: FormFields;
  error: string | null;
  csrf: string;
  now: number;
  sources: readonly SourceChoice[];
};

/** One subscription: what it is, what can be done to it, and its edit form. */
export function SubscriptionPage(props: { data: SubscriptionPageData }) {
  const { subscription: s, title, kind, kindFields, fields, error, csrf, now, sources } = props.data;
  const base = `/admin/subscriptions/${encodeURIComponent(s.id)}`;
  const rotatingUntil = s.previousSecretUntil !== null && s.previousSecretUntil > now ? s.previousSecretUntil : null;
  return (
    <>
      <dl class="facts">
        <dt>Where</dt>
        <dd>
          <strong class="target">{title.title}</strong>
          {title.detail !== null && (
            <>
              <br />
              <code class="target">{title.detail}</code>
            </>
          )}
        </dd>
        <dt>Status</dt>
        <dd>
          <span class={`label label-status-${s.status}`}>{s.status}</span>
          {s.pausedReason ? ` ${s.pausedReason}` : ''}
        </dd>
        <dt>Channel</dt>
        <dd>
          {kind?.label ?? s.channel} ({originText(s)})
        </dd>
        <dt>Failing since</dt>
        <dd>{s.failingSince === null ? 'not failing' : <Time ms={s.failingSince} />}</dd>
        <dt>Last success</dt>
        <dd>{s.lastSuccessAt === null ? 'none yet' : <Time ms={s.lastSuccessAt} />}</dd>
        {s.channel === 'webhook' && (
          <>
            <dt>Signing secret</dt>
            <dd>
              {rotatingUntil === null ? (
                'one secret'
              ) : (
                <>
                  rotating: the previous one also signs until <Time ms={rotatingUntil} />
                </>
              )}
            </dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{s.id}</code>
        </dd>
      </dl>
      <div class="actions">
        <a href={`/admin/deliveries?subscription=${encodeURIComponent(s.id)}`}>Deliveries</a>
        {s.status === 'active' && <PostButton action={`${base}/pause`} csrf={csrf} label="Pause" />}
        {s.status === 'paused' && <PostButton action={`${base}/resume`} csrf={csrf} label="Resume" />}
        {s.status !== 'pending' && <PostButton action={`${base}/test`} csrf={csrf} label="Send test" />}
        {s.channel === 'webhook' && (
          <details class="confirm-step">
            <summary>Rotate secret…</summary>
            <PostButton action={`${base}/rotate-secret`} csrf={csrf} label="Make a new secret" />
          </details>
        )}
        <details class="confirm-step">
          <summary>Delete…</summary>
          <PostButton action={`${base}/delete`} csrf={csrf} label="Delete for good" danger />
        </details>
      </div>
      <h2 id="edit-title">Change</h2>
      <FormError error={error} />
      <form method="post" action={base} class="form-stack" aria-labelledby="edit-title" novalidate>
        <CsrfField token={csrf} />
        {kindFields}
        <SharedFields fields={fields} sources={sources} />
        <div class="actions">
          <button type="submit">Save changes</button>
        </div>
      </form>
    </>
  );
}

/** A webhook's signing secret, in the clear this once: never stored so, never shown again. */
export function SecretOncePage(props: { subscription: StoredSubscription; title: SubscriptionTitle; secret: string | null; rotated: boolean }) {
  const { subscription: s, secret } = props;
  const href = `/admin/subscriptions/${encodeURIComponent(s.id)}`;
  return (
    <>
      <p>
        {props.rotated ? 'A new signing secret was made for' : 'Subscription created for'} <strong class="target">{props.title.title}</strong>.
      </p>
      {props.title.detail !== null && (
        <p>
          <code class="target">{props.title.detail}</code>
        </p>
      )}
      {secret && (
        <section class="warning" aria-labelledby="secret-title">
          <h2 id="secret-title">Signing secret</h2>
          <p>Copy it now into the receiver's settings: it is shown only this once.</p>
          <pre class="payload secret">
            <code>{secret}</code>
          </pre>
          {props.rotated && <p>The previous secret keeps signing for 24 hours, so the receiver can switch without missing a message.</p>}
        </section>
      )}
      <p>
        <a href={href}>Open the subscription</a> · <a href="/admin/subscriptions">All subscriptions</a>
      </p>
    </>
  );
}
