/**
 * /admin: what an admin checks first. Is the feed being read, what did the last polls get, how deep
 * is the outbox, which subscriptions fail and why; then links to the rest. A part that could not be
 * read says "unknown", never a reassuring zero.
 */
import type { FeedState } from '../../core/feed-state.ts';
import type { DeliveryCounts, PollRun, StoredSubscription } from '../../core/ports.ts';
import { AdminHome } from './admin-frame.tsx';
import type { SubscriptionTitle } from '../../core/subscription-title.ts';
import { SubscriptionName } from './subscription-name.tsx';
import { changesText } from './admin-polls-page.tsx';
import { DataTable } from './data-table.tsx';
import { durationText, Time } from './time.tsx';

/** A part of the page read from the store: its value, or why it is unknown. */
export type Known<T> = { ok: true; value: T } | { ok: false; error: string };

export type FailingSubscription = { subscription: StoredSubscription; title: SubscriptionTitle; lastError: string | null };

export type OverviewData = {
  now: number;
  feed: Known<FeedState>;
  polls: Known<PollRun[]>;
  outbox: Known<DeliveryCounts>;
  /** At most `failingShown`; `moreFailing` when there are others. */
  failing: Known<{ list: FailingSubscription[]; more: boolean }>;
};

function Unknown(props: { error: string }) {
  return (
    <p class="warning">
      <strong>Unknown:</strong> this could not be read just now ({props.error}). Reload to try again.
    </p>
  );
}

const FEED_LABELS: Record<FeedState['kind'], string> = { ok: 'ok', stale: 'stale', blind: 'blind', 'never-read': 'never read' };

function LastError(props: { error: string | null }) {
  return props.error ? (
    <p>
      Last error: <span class="wrap">{props.error}</span>
    </p>
  ) : null;
}

function FeedSection(props: { feed: FeedState; now: number }) {
  const { feed, now } = props;
  return (
    <div class={`feed-state feed-state-${feed.kind}`}>
      <p>
        <span class={`label label-feed-${feed.kind}`}>{FEED_LABELS[feed.kind]}</span>{' '}
        {feed.kind === 'ok' && (
          <>
            The feed is being read: the last good read was at <Time ms={feed.lastSuccessAt} />.
          </>
        )}
        {feed.kind === 'stale' && (
          <>
            The last {feed.failures === 1 ? 'attempt' : `${feed.failures} attempts`} to read the feed failed; the last good read was at{' '}
            <Time ms={feed.lastSuccessAt} />.
          </>
        )}
        {feed.kind === 'blind' && (
          <>
            No good read since <Time ms={feed.since} /> ({durationText(now - feed.since)}): the public pages say the state is unknown.
          </>
        )}
        {feed.kind === 'never-read' && (feed.attempted ? 'No poll has read the feed successfully yet.' : 'No poll has run yet.')}
      </p>
      <LastError error={feed.kind === 'ok' ? null : feed.lastError} />
    </div>
  );
}

function PollsTable(props: { runs: PollRun[] }) {
  if (props.runs.length === 0) return <p>No poll has run yet.</p>;
  return (
    <DataTable labelledBy="overview-polls-title" columns={['Started', 'Outcome', 'Took', 'Changes', 'Error']}>
      {props.runs.map((run) => (
        <tr>
          <th scope="row">
            <a href={`/admin/polls/${encodeURIComponent(run.id)}`}>
              <Time ms={run.startedAt} />
            </a>
          </th>
          <td>
            <span class={`label label-outcome-${run.outcome}`}>{run.outcome}</span>
          </td>
          <td>{run.finishedAt - run.startedAt}&nbsp;ms</td>
          <td>{changesText(run)}</td>
          <td class="wrap">{run.error ?? ''}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function OutboxFacts(props: { counts: DeliveryCounts }) {
  const { counts } = props;
  return (
    <dl class="facts">
      <dt>Pending</dt>
      <dd>
        <a href="/admin/deliveries?state=pending">{counts.pending}</a> ({counts.due} due now)
      </dd>
      <dt>Retrying</dt>
      <dd>{counts.retrying} (pending after a failed attempt)</dd>
      <dt>Dead</dt>
      <dd>
        <a href="/admin/deliveries?state=dead">{counts.dead}</a> (given up: replay them once the receiver is fixed)
      </dd>
      <dt>Oldest due</dt>
      <dd>{counts.oldestPendingAt === null ? 'none waiting' : <Time ms={counts.oldestPendingAt} />}</dd>
    </dl>
  );
}

function FailingList(props: { list: FailingSubscription[]; more: boolean }) {
  if (props.list.length === 0) return <p>No subscription is failing.</p>;
  return (
    <>
      <ul class="admin-list">
        {props.list.map(({ subscription: s, title, lastError }) => (
          <li class="admin-card failing">
            <p>
              <SubscriptionName id={s.id} title={title} /> ({s.channel}, {s.status})
            </p>
            <p>
              Failing since {s.failingSince === null ? 'a moment ago' : <Time ms={s.failingSince} />}
              {s.lastSuccessAt === null ? (
                '; never delivered to.'
              ) : (
                <>
                  ; last delivered <Time ms={s.lastSuccessAt} />.
                </>
              )}
            </p>
            <LastError error={lastError} />
          </li>
        ))}
      </ul>
      {props.more && (
        <p>
          <a href="/admin/subscriptions?health=failing">All failing subscriptions</a>
        </p>
      )}
    </>
  );
}

export function OverviewPage(props: { data: OverviewData }) {
  const { now, feed, polls, outbox, failing } = props.data;
  return (
    <>
      <section aria-labelledby="overview-feed-title">
        <h2 id="overview-feed-title">Vendor feed</h2>
        {feed.ok ? <FeedSection feed={feed.value} now={now} /> : <Unknown error={feed.error} />}
      </section>
      <section aria-labelledby="overview-polls-title">
        <h2 id="overview-polls-title">Last polls</h2>
        {polls.ok ? <PollsTable runs={polls.value} /> : <Unknown error={polls.error} />}
        <p>
          <a href="/admin/polls">All poll runs</a>
        </p>
      </section>
      <section aria-labelledby="overview-outbox-title">
        <h2 id="overview-outbox-title">Outbox</h2>
        {outbox.ok ? <OutboxFacts counts={outbox.value} /> : <Unknown error={outbox.error} />}
      </section>
      <section aria-labelledby="overview-failing-title">
        <h2 id="overview-failing-title">Failing subscriptions</h2>
        {failing.ok ? <FailingList list={failing.value.list} more={failing.value.more} /> : <Unknown error={failing.error} />}
      </section>
      <section aria-labelledby="overview-more-title">
        <h2 id="overview-more-title">Everything else</h2>
        <AdminHome />
      </section>
    </>
  );
}
