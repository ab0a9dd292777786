/** The admin list of subscriptions, with their health and links to each one's page and deliveries, and the result of a test send. */
import type { TestSendResult } from '../../app/subscriptions.ts';
import type { StoredSubscription } from '../../core/ports.ts';
import { CHANNELS, type SubscriptionFilters } from '../../core/subscription.ts';
import { Time } from './time.tsx';
import { DataTable } from './data-table.tsx';
import type { SubscriptionTitle } from '../../core/subscription-title.ts';
import { SubscriptionName } from './subscription-name.tsx';
import { SUBSCRIPTION_FORM_KINDS } from './subscription-kinds.tsx';

export const SUBSCRIPTION_STATUSES = ['pending', 'active', 'paused'] as const;

export type SubscriptionsPageData = {
  subscriptions: StoredSubscription[];
  /** Each subscription's title, by id (app/subscription-titles.ts). */
  titles: ReadonlyMap<string, SubscriptionTitle>;
  status: string;
  channel: string;
  /** `failing`, or '' for any. */
  health: string;
  /** Filters as URL parameters, without the cursor. */
  params: URLSearchParams;
  nextCursor: string;
  onFirstPage: boolean;
};

/** What a subscription receives, in short; without `sources` it is the main feed's alone, and says so. */
export function filtersText(filters: SubscriptionFilters): string {
  const parts = [
    `sources: ${filters.sources?.length ? filters.sources.join(', ') : 'main'}`,
    filters.services?.length ? `services: ${filters.services.join(', ')}` : '',
    filters.types?.length ? `kinds: ${filters.types.join(', ')}` : '',
    filters.events?.length ? `updates: ${filters.events.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ');
}

/**
 * One subscription as a row of the list, one or two lines tall: its name, state and health, and
 * links to its page (where pause, resume, test and delete are) and its deliveries. Stacked
 * buttons made each row about 130 px tall; a long text (a pause's reason, many filters) is cut
 * short here, whole in its tooltip and on the subscription's page.
 */
function SubscriptionRow(props: { s: StoredSubscription; title: SubscriptionTitle }) {
  const { s } = props;
  const filters = filtersText(s.filters);
  return (
    <tr>
      <th scope="row">
        <SubscriptionName id={s.id} title={props.title} />
      </th>
      <td>
        <span class="cell-line">
          <span class={`label label-status-${s.status}`}>{s.status}</span> {s.channel}
        </span>
        {/* Why it is paused matters more than who made it: the page shows both, whole. */}
        {s.pausedReason ? (
          <span class="cell-line" title={s.pausedReason}>
            {s.pausedReason}
          </span>
        ) : (
          <span class="cell-line hint">{originText(s)}</span>
        )}
      </td>
      <td>
        <span class="cell-clamp" title={filters}>
          {filters}
        </span>
      </td>
      <td>
        <span class="cell-line">
          {s.failingSince === null ? (
            'not failing'
          ) : (
            <>
              failing since <Time ms={s.failingSince} />
            </>
          )}
        </span>
        <span class="cell-line">
          {s.lastSuccessAt === null ? (
            'no success yet'
          ) : (
            <>
              last success <Time ms={s.lastSuccessAt} />
            </>
          )}
        </span>
      </td>
      <td>
        <div class="row-actions">
          <a href={`/admin/subscriptions/${encodeURIComponent(s.id)}`}>Change…</a>{' '}
          <a href={`/admin/deliveries?subscription=${encodeURIComponent(s.id)}`}>Deliveries</a>
        </div>
      </td>
    </tr>
  );
}

/** Who made a subscription, in the list's words and its page's. */
export function originText(s: Pick<StoredSubscription, 'origin'>): string {
  return s.origin === 'public' ? 'public sign-up' : 'by an admin';
}

/**
 * How many a page of a list shows, without claiming the list's size: a page that has a next one
 * says there are more, since the list is read a page at a time.
 */
export function pageCountText(shown: number, noun: [string, string], more: boolean, onFirstPage: boolean): string {
  if (shown === 0) return `No ${noun[1]}`;
  const words = `${shown} ${shown === 1 ? noun[0] : noun[1]}`;
  if (!onFirstPage) return `${words}, continued${more ? '; more on the next page' : ''}`;
  return more ? `The first ${words}; more on the next page` : words;
}

/** Every kind the form offers, in its order: the list names no fewer kinds than the form has. */
function kindNames(): string {
  const labels = SUBSCRIPTION_FORM_KINDS.map((kind) => kind.label);
  return `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`;
}

export function SubscriptionsPage(props: { data: SubscriptionsPageData }) {
  const { subscriptions, titles, status, channel, health, params, nextCursor, onFirstPage } = props.data;
  const next = new URLSearchParams(params);
  next.set('cursor', nextCursor);
  return (
    <>
      <p>
        <a href="/admin/new-subscription">New subscription</a>: {kindNames()}.
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
        <h2 id="subs-title">{pageCountText(subscriptions.length, ['subscription', 'subscriptions'], nextCursor !== '', onFirstPage)}</h2>
        {subscriptions.length > 0 && (
          <DataTable labelledBy="subs-title" class="subscription-rows" columns={['Subscription', 'Status, channel', 'Filters', 'Health', 'Actions']}>
            {subscriptions.map((s) => (
              <SubscriptionRow s={s} title={titles.get(s.id) ?? { title: s.target, detail: null }} />
            ))}
          </DataTable>
        )}
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

export function TestResultsPage(props: { subscription: StoredSubscription; title: SubscriptionTitle; results: TestSendResult[] }) {
  const allOk = props.results.every((r) => r.ok);
  return (
    <>
      <p>
        One test message of each kind was sent to <strong class="target">{props.title.title}</strong>.{' '}
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
