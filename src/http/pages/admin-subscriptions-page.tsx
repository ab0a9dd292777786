/** The admin list of subscriptions, with their health and the actions on each, and the result of a test send. */
import type { TestSendResult } from '../../app/subscriptions.ts';
import type { StoredSubscription } from '../../core/ports.ts';
import { CHANNELS, type SubscriptionFilters } from '../../core/subscription.ts';
import { PostButton } from './admin-frame.tsx';
import { Time } from './time.tsx';
import { DataTable } from './data-table.tsx';

export const SUBSCRIPTION_STATUSES = ['pending', 'active', 'paused'] as const;

export type SubscriptionsPageData = {
  subscriptions: StoredSubscription[];
  status: string;
  channel: string;
  /** `failing`, or '' for any. */
  health: string;
  /** Filters as URL parameters, without the cursor. */
  params: URLSearchParams;
  nextCursor: string;
  onFirstPage: boolean;
  csrf: string;
};

export function filtersText(filters: SubscriptionFilters): string {
  const parts = [
    filters.services?.length ? `services: ${filters.services.join(', ')}` : '',
    filters.types?.length ? `kinds: ${filters.types.join(', ')}` : '',
    filters.events?.length ? `updates: ${filters.events.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'everything';
}

function SubscriptionCard(props: { s: StoredSubscription; csrf: string }) {
  const { s, csrf } = props;
  const base = `/admin/subscriptions/${encodeURIComponent(s.id)}`;
  return (
    <li class={`admin-card status-${s.status}`}>
      <h3 class="target">
        <a href={base}>{s.target}</a>
      </h3>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`label label-status-${s.status}`}>{s.status}</span>
          {s.pausedReason ? ` ${s.pausedReason}` : ''}
        </dd>
        <dt>Channel</dt>
        <dd>
          {s.channel} ({s.origin === 'public' ? 'signed up on the site' : 'made by an admin'})
        </dd>
        <dt>Filters</dt>
        <dd>{filtersText(s.filters)}</dd>
        <dt>Time zone</dt>
        <dd>{s.timeZone}</dd>
        <dt>Failing since</dt>
        <dd>{s.failingSince === null ? 'not failing' : <Time ms={s.failingSince} />}</dd>
        <dt>Last success</dt>
        <dd>{s.lastSuccessAt === null ? 'none yet' : <Time ms={s.lastSuccessAt} />}</dd>
        <dt>Created</dt>
        <dd>
          <Time ms={s.createdAt} />
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{s.id}</code>
        </dd>
      </dl>
      <div class="actions">
        <a href={base}>Change…</a>
        <a href={`/admin/deliveries?subscription=${encodeURIComponent(s.id)}`}>Deliveries</a>
        {s.status === 'active' && <PostButton action={`${base}/pause`} csrf={csrf} label="Pause" />}
        {s.status === 'paused' && <PostButton action={`${base}/resume`} csrf={csrf} label="Resume" />}
        {s.status !== 'pending' && <PostButton action={`${base}/test`} csrf={csrf} label="Send test" />}
        {/* A second step without scripts: the delete button only shows once "Delete…" is opened. */}
        <details class="confirm-step">
          <summary>Delete…</summary>
          <PostButton action={`${base}/delete`} csrf={csrf} label="Delete for good" danger />
        </details>
      </div>
    </li>
  );
}

export function SubscriptionsPage(props: { data: SubscriptionsPageData }) {
  const { subscriptions, status, channel, health, params, nextCursor, onFirstPage, csrf } = props.data;
  const next = new URLSearchParams(params);
  next.set('cursor', nextCursor);
  return (
    <>
      <p>
        <a href="/admin/new-subscription">New subscription</a>: a webhook, a team-chat channel or an email address.
      </p>
      <form method="get" action="/admin/subscriptions" class="filters" aria-label="Filter subscriptions">
        <div class="field">
          <label for="as-status">Status</label>
          <select id="as-status" name="status">
            <option value="">Any status</option>
            {SUBSCRIPTION_STATUSES.map((v) => (
              <option value={v} selected={v === status}>
                {v}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="as-channel">Channel</label>
          <select id="as-channel" name="channel">
            <option value="">Any channel</option>
            {CHANNELS.map((v) => (
              <option value={v} selected={v === channel}>
                {v}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="as-health">Health</label>
          <select id="as-health" name="health">
            <option value="">Failing or not</option>
            <option value="failing" selected={health === 'failing'}>
              failing
            </option>
          </select>
        </div>
        <div class="actions">
          <button type="submit">Show</button>
        </div>
      </form>
      <section aria-labelledby="subs-title">
        <h2 id="subs-title">
          {subscriptions.length === 0
            ? 'No subscriptions'
            : `${subscriptions.length} ${subscriptions.length === 1 ? 'subscription' : 'subscriptions'}${onFirstPage ? '' : ', continued'}`}
        </h2>
        <ul class="admin-list">
          {subscriptions.map((s) => (
            <SubscriptionCard s={s} csrf={csrf} />
          ))}
        </ul>
        <PageLinks path="/admin/subscriptions" params={params} next={nextCursor ? next : null} onFirstPage={onFirstPage} />
      </section>
    </>
  );
}

/** Forward by cursor, and back to the first page: the same links every admin list has. */
export function PageLinks(props: { path: string; params: URLSearchParams; next: URLSearchParams | null; onFirstPage: boolean }) {
  if (!props.next && props.onFirstPage) return null;
  const first = props.params.toString();
  return (
    <nav class="pagination" aria-label="Pages">
      {!props.onFirstPage && <a href={first ? `${props.path}?${first}` : props.path}>First page</a>}
      {props.next && (
        <a href={`${props.path}?${props.next}`} rel="next">
          Next page
        </a>
      )}
    </nav>
  );
}

export function TestResultsPage(props: { subscription: StoredSubscription; results: TestSendResult[] }) {
  const allOk = props.results.every((r) => r.ok);
  return (
    <>
      <p>
        One test message of each kind was sent to <strong class="target">{props.subscription.target}</strong>.{' '}
        {allOk ? 'All were accepted.' : 'Some were not accepted: see below.'}
      </p>
      <DataTable labelledBy="test-caption" caption="Test messages" columns={['Update', 'Result', 'Status', 'Error']}>
        {props.results.map((r) => (
          <tr>
            <th scope="row">{r.eventType}</th>
            <td>{r.ok ? 'accepted' : 'failed'}</td>
            <td>{r.status ?? '–'}</td>
            <td class="wrap">{r.error ?? ''}</td>
          </tr>
        ))}
      </DataTable>
      <p>
        <a href={`/admin/subscriptions/${encodeURIComponent(props.subscription.id)}`}>Back to the subscription</a> ·{' '}
        <a href="/admin/subscriptions">All subscriptions</a>
      </p>
    </>
  );
}
