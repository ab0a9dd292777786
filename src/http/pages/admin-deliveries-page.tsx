/** The admin view of the outbox: deliveries by state and subscription, one delivery's attempts, and replays. */
import { componentLabel } from '../../core/component-message.ts';
import type { StatusEvent } from '../../core/events.ts';
import type { Delivery, DeliveryAttemptRecord, StoredSubscription } from '../../core/ports.ts';
import { CsrfField, PostButton } from './admin-frame.tsx';
import { PageLinks, pageCountText } from './admin-subscriptions-page.tsx';
import type { SubscriptionTitle } from '../../core/subscription-title.ts';
import { SubscriptionName } from './subscription-name.tsx';
import { Time } from './time.tsx';
import { DataTable } from './data-table.tsx';
import type { SubscriptionChoice, SubscriptionSearch } from '../../app/subscription-choices.ts';

export const DELIVERY_STATES = ['pending', 'done', 'dead'] as const;
/** A digest can carry many events: its page lists this many and counts the rest. */
export const DELIVERY_EVENTS_SHOWN = 20;

/** A delivery with what it carries and where it went, as the admin's lists show it. */
export type DeliveryView = {
  delivery: Delivery;
  /** Null once the subscription was deleted. */
  subscription: StoredSubscription | null;
  /** Its title (app/subscription-titles.ts), null once it was deleted. */
  title: SubscriptionTitle | null;
  /** The first event it carries (null if pruned), and how many more it carries. */
  event: StatusEvent | null;
  moreEvents: number;
};

export type DeliveriesPageData = {
  deliveries: DeliveryView[];
  state: string;
  /** What the filter was given: a subscription's id, or (past the list's size) words of its title. */
  subscription: string;
  /** The id the deliveries are filtered by ('' for all): the one subscription the text named, or the text itself. */
  subscriptionId: string;
  /** Every subscription to pick from, by title; null when there are too many and the filter is a search. */
  choices: SubscriptionChoice[] | null;
  /** What a search found when it did not name exactly one subscription; null otherwise. */
  search: SubscriptionSearch | null;
  params: URLSearchParams;
  nextCursor: string;
  onFirstPage: boolean;
  csrf: string;
  /** Today (UTC) as YYYY-MM-DD: what the replay form offers first. */
  today: string;
};

function StateSelect(props: { id: string; value: string }) {
  return (
    <select id={props.id} name="state">
      <option value="">Any state</option>
      {DELIVERY_STATES.map((v) => (
        <option value={v} selected={v === props.value}>
          {v}
        </option>
      ))}
    </select>
  );
}

/** An event in a word or two, linked to its incident's public page when it is about one (a component's change: its page's). */
export function EventSummary(props: { event: StatusEvent | null; id: string }) {
  const { event } = props;
  if (!event) {
    return (
      <>
        <code>{props.id}</code> (no longer kept)
      </>
    );
  }
  const data = event.data;
  return (
    <>
      <code class="event-type">{event.type}</code>{' '}
      {'incident' in data ? (
        <>
          <a href={`/incidents/${encodeURIComponent(data.incident.id)}`}>#{data.incident.id}</a> <span class="wrap">{data.incident.title}</span>
        </>
      ) : data.type === 'component.status_changed' ? (
        <>
          <a href={`/sources/${encodeURIComponent(data.source.id)}`}>{data.source.name}</a>{' '}
          <span class="wrap">
            {componentLabel(data)}: {data.from_state} → {data.to_state}
          </span>
        </>
      ) : data.type === 'monitor.blind' ? (
        'the feed could not be read'
      ) : (
        'the feed is read again'
      )}
    </>
  );
}

/** Where a delivery went: its subscription's title, linked to the subscription's page, the ids on a detail line. */
export function DeliveryTarget(props: { delivery: Delivery; subscription: StoredSubscription | null; title: SubscriptionTitle | null }) {
  const { delivery: d, subscription, title } = props;
  return (
    <>
      {d.channel}:{' '}
      {subscription ? (
        <SubscriptionName id={subscription.id} title={title ?? { title: subscription.target, detail: null }} />
      ) : (
        <>
          <code>{d.subscriptionId}</code> (deleted)
        </>
      )}
    </>
  );
}

function DeliveryRow(props: { view: DeliveryView }) {
  const { delivery: d, subscription, title, event, moreEvents } = props.view;
  return (
    <tr>
      <th scope="row">
        <a href={`/admin/deliveries/${d.id}`}>#{d.id}</a>
        <br />
        <span class={`label label-state-${d.state}`}>{d.state}</span>
      </th>
      <td class="wrap narrow">
        <EventSummary event={event} id={d.eventIds[0] ?? ''} />
        {moreEvents > 0 && ` and ${moreEvents} more`}
      </td>
      <td class="name-cell">
        <DeliveryTarget delivery={d} subscription={subscription} title={title} />
      </td>
      <td>{d.attempts}</td>
      <td>
        <Time ms={d.createdAt} />
        <br />
        {d.state === 'pending' ? (
          <>
            next <Time ms={d.nextAttemptAt} />
          </>
        ) : d.finishedAt === null ? (
          ''
        ) : (
          <>
            {d.state === 'done' ? 'sent' : 'gave up'} <Time ms={d.finishedAt} />
          </>
        )}
      </td>
      <td class="wrap">{d.lastError ?? ''}</td>
    </tr>
  );
}

/** A subscription in a list to pick from: its title, its detail line, and its id when another has the same words. */
function choiceText(choice: SubscriptionChoice, sameWords: boolean): string {
  const words = choice.title.detail === null ? choice.title.title : `${choice.title.title} (${choice.title.detail})`;
  return sameWords ? `${words} · ${choice.id}` : words;
}

/**
 * The subscription a form is about, picked by its title from every subscription; an id that is
 * not among them (a deleted subscription's, from a link) stays picked and says so. Past the
 * list's size, a text field for an id (or, where `search` says so, words of its title).
 */
function SubscriptionPicker(props: { id: string; label: string; choices: SubscriptionChoice[] | null; value: string; search: boolean }) {
  const { choices, value } = props;
  if (choices === null) {
    return (
      <>
        <label for={props.id}>{props.search ? `${props.label}: its id or words of its title` : `${props.label} id`}</label>
        <input type="text" id={props.id} name="subscription" value={value} spellcheck={false} />
      </>
    );
  }
  const counts = new Map<string, number>();
  for (const choice of choices) counts.set(choiceText(choice, false), (counts.get(choiceText(choice, false)) ?? 0) + 1);
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name="subscription">
        <option value="">Any subscription</option>
        {value !== '' && !choices.some((choice) => choice.id === value) && (
          <option value={value} selected>
            {value} (no such subscription now)
          </option>
        )}
        {choices.map((choice) => (
          <option value={choice.id} selected={choice.id === value}>
            {choiceText(choice, (counts.get(choiceText(choice, false)) ?? 0) > 1)}
          </option>
        ))}
      </select>
    </>
  );
}

/** What a search of titles found, when it did not name exactly one subscription: links to pick one, and its bounds. */
function SearchAnswer(props: { text: string; search: SubscriptionSearch; params: URLSearchParams }) {
  const { text, search } = props;
  const linkTo = (id: string) => {
    const params = new URLSearchParams(props.params);
    params.set('subscription', id);
    return `/admin/deliveries?${params}`;
  };
  const bound = search.partial ? ' The search stopped before reading every subscription: a more exact text finds the rest.' : '';
  if (search.matches.length === 0) {
    return (
      <p class="notice" role="status">
        No subscription’s id or title has “{text}”: the deliveries below are those to a subscription with that id.{bound}
      </p>
    );
  }
  return (
    <section aria-labelledby="matches-title">
      <h2 id="matches-title">
        {search.matches.length} {search.matches.length === 1 ? 'subscription has' : 'subscriptions have'} “{text}” in their title: pick one
      </h2>
      {bound && <p class="hint">{bound.trim()}</p>}
      <ul class="plain-list">
        {search.matches.map((choice) => (
          <li>
            <a href={linkTo(choice.id)}>{choiceText(choice, true)}</a>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function DeliveriesPage(props: { data: DeliveriesPageData }) {
  const { deliveries, state, subscription, subscriptionId, choices, search, params, nextCursor, onFirstPage, csrf, today } = props.data;
  const next = new URLSearchParams(params);
  next.set('cursor', nextCursor);
  return (
    <>
      <form method="get" action="/admin/deliveries" class="filters" aria-label="Filter deliveries">
        <div class="field">
          <label for="ad-state">State</label>
          <StateSelect id="ad-state" value={state} />
        </div>
        <div class="field">
          <SubscriptionPicker id="ad-subscription" label="Subscription" choices={choices} value={choices === null ? subscription : subscriptionId} search />
        </div>
        <div class="actions">
          <button type="submit">Show</button> <a href="/admin/deliveries">Clear filters</a>
        </div>
      </form>
      {search && <SearchAnswer text={subscription} search={search} params={params} />}
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">
          {pageCountText(deliveries.length, ['delivery', 'deliveries'], nextCursor !== '', onFirstPage)}
          {deliveries.length > 0 && ', newest first'}
        </h2>
        {deliveries.length > 0 && (
          <DataTable labelledBy="deliveries-title" columns={['Delivery', 'Event', 'To', 'Attempts', 'Created, then next or done', 'Last error']}>
            {deliveries.map((view) => (
              <DeliveryRow view={view} />
            ))}
          </DataTable>
        )}
        <PageLinks path="/admin/deliveries" params={params} next={nextCursor ? next : null} onFirstPage={onFirstPage} />
      </section>
      <section aria-labelledby="replay-title">
        <h2 id="replay-title">Replay all since</h2>
        <form method="post" action="/admin/delivery-replays" class="filters">
          <CsrfField token={csrf} />
          <p class="hint">Sends again every delivery created since then, whatever its state, with the same message ids.</p>
          <div class="field">
            <label for="rp-since">Since (UTC date or ISO 8601 time)</label>
            <input type="text" id="rp-since" name="since" value={today} required spellcheck={false} />
          </div>
          <div class="field">
            <SubscriptionPicker id="rp-subscription" label="Only this subscription" choices={choices} value={subscriptionId} search={false} />
          </div>
          <div class="field">
            <label for="rp-state">Only in this state</label>
            <StateSelect id="rp-state" value="" />
          </div>
          <div class="actions">
            <button type="submit">Replay</button>
          </div>
        </form>
      </section>
    </>
  );
}

export function DeliveryPage(props: {
  delivery: Delivery;
  attempts: DeliveryAttemptRecord[];
  webhookId: string | null;
  csrf: string;
  subscription: StoredSubscription | null;
  title: SubscriptionTitle | null;
  /** The events it carries that are still kept, at most a page's worth. */
  events: StatusEvent[];
}) {
  const { delivery: d, attempts, csrf } = props;
  const byId = new Map(props.events.map((e) => [e.id, e]));
  const shownIds = d.eventIds.slice(0, DELIVERY_EVENTS_SHOWN);
  return (
    <>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <span class={`label label-state-${d.state}`}>{d.state}</span>
        </dd>
        <dt>To</dt>
        <dd>
          <DeliveryTarget delivery={d} subscription={props.subscription} title={props.title} />
        </dd>
        <dt>Subscription</dt>
        <dd>
          <a href={`/admin/deliveries?subscription=${encodeURIComponent(d.subscriptionId)}`}>
            <code>{d.subscriptionId}</code>
          </a>
        </dd>
        {props.webhookId && (
          <>
            <dt>webhook-id</dt>
            <dd>
              <code>{props.webhookId}</code>
            </dd>
          </>
        )}
        <dt>Events</dt>
        <dd>
          <ul class="plain-list">
            {shownIds.map((id) => (
              <li>
                <EventSummary event={byId.get(id) ?? null} id={id} />
              </li>
            ))}
            {d.eventIds.length > shownIds.length && <li>and {d.eventIds.length - shownIds.length} more</li>}
          </ul>
        </dd>
        <dt>Created</dt>
        <dd>
          <Time ms={d.createdAt} />
        </dd>
        <dt>{d.state === 'pending' ? 'Next attempt' : 'Finished'}</dt>
        <dd>{d.state === 'pending' ? <Time ms={d.nextAttemptAt} /> : d.finishedAt === null ? '–' : <Time ms={d.finishedAt} />}</dd>
        <dt>Last error</dt>
        <dd>{d.lastError ?? 'none'}</dd>
      </dl>
      <div class="actions">
        <PostButton action={`/admin/deliveries/${d.id}/replay`} csrf={csrf} label="Replay this delivery" />
      </div>
      <section aria-labelledby="attempts-title">
        <h2 id="attempts-title">
          {attempts.length === 0
            ? 'No attempts yet'
            : `${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}${d.attempts > attempts.length ? `, the newest ${attempts.length} shown` : ''}`}
        </h2>
        {attempts.length > 0 && (
          <DataTable labelledBy="attempts-title" columns={['When', 'Result', 'Status', 'Took', 'Error', 'Response']}>
            {attempts.map((a) => (
              <tr>
                <th scope="row">
                  <Time ms={a.attemptedAt} />
                </th>
                <td>{a.ok ? 'accepted' : 'failed'}</td>
                <td>{a.status ?? '–'}</td>
                <td>{a.durationMs} ms</td>
                <td class="wrap">{a.error ?? ''}</td>
                <td class="wrap">{a.responseExcerpt ? <pre class="payload">{a.responseExcerpt}</pre> : ''}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      <p>
        <a href="/admin/deliveries">All deliveries</a>
      </p>
    </>
  );
}
