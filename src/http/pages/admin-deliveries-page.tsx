/** The admin view of the outbox: deliveries by state and subscription, one delivery's attempts, and replays. */
import type { Delivery, DeliveryAttemptRecord } from '../../core/ports.ts';
import { CsrfField, PostButton } from './admin-frame.tsx';
import { PageLinks } from './admin-subscriptions-page.tsx';
import { Time } from './time.tsx';
import { DataTable } from './data-table.tsx';

export const DELIVERY_STATES = ['pending', 'done', 'dead'] as const;

export type DeliveriesPageData = {
  deliveries: Delivery[];
  state: string;
  subscription: string;
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

function DeliveryRow(props: { d: Delivery }) {
  const { d } = props;
  return (
    <tr>
      <th scope="row">
        <a href={`/admin/deliveries/${d.id}`}>#{d.id}</a>
      </th>
      <td>
        <a href={`/admin/deliveries?subscription=${encodeURIComponent(d.subscriptionId)}`}>
          <code>{d.subscriptionId}</code>
        </a>
      </td>
      <td>{d.channel}</td>
      <td>
        <span class={`label label-state-${d.state}`}>{d.state}</span>
      </td>
      <td>{d.attempts}</td>
      <td>
        <Time ms={d.createdAt} />
      </td>
      <td>{d.state === 'pending' ? <Time ms={d.nextAttemptAt} /> : d.finishedAt === null ? '–' : <Time ms={d.finishedAt} />}</td>
      <td class="wrap">{d.lastError ?? ''}</td>
    </tr>
  );
}

export function DeliveriesPage(props: { data: DeliveriesPageData }) {
  const { deliveries, state, subscription, params, nextCursor, onFirstPage, csrf, today } = props.data;
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
          <label for="ad-subscription">Subscription id</label>
          <input type="text" id="ad-subscription" name="subscription" value={subscription} spellcheck={false} />
        </div>
        <div class="actions">
          <button type="submit">Show</button> <a href="/admin/deliveries">Clear filters</a>
        </div>
      </form>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">
          {deliveries.length === 0
            ? 'No deliveries'
            : `${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'}, newest first${onFirstPage ? '' : ', continued'}`}
        </h2>
        {deliveries.length > 0 && (
          <DataTable
            labelledBy="deliveries-title"
            columns={['Delivery', 'Subscription', 'Channel', 'State', 'Attempts', 'Created', 'Next attempt or finished', 'Last error']}
          >
            {deliveries.map((d) => (
              <DeliveryRow d={d} />
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
            <label for="rp-subscription">Only this subscription id</label>
            <input type="text" id="rp-subscription" name="subscription" value={subscription} spellcheck={false} />
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

export function DeliveryPage(props: { delivery: Delivery; attempts: DeliveryAttemptRecord[]; webhookId: string | null; csrf: string }) {
  const { delivery: d, attempts, csrf } = props;
  return (
    <>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <span class={`label label-state-${d.state}`}>{d.state}</span>
        </dd>
        <dt>Subscription</dt>
        <dd>
          <a href={`/admin/deliveries?subscription=${encodeURIComponent(d.subscriptionId)}`}>
            <code>{d.subscriptionId}</code>
          </a>
        </dd>
        <dt>Channel</dt>
        <dd>{d.channel}</dd>
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
          {d.eventIds.map((id, i) => (
            <>
              {i > 0 && ', '}
              <code>{id}</code>
            </>
          ))}
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
        <h2 id="attempts-title">{attempts.length === 0 ? 'No attempts yet' : `${attempts.length} ${attempts.length === 1 ? 'attempt' : 'attempts'}`}</h2>
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
