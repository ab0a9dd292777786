/** When the feed was last read, and a visible warning while it cannot be read: what `/` shows may be stale. */
import type { FeedHealth } from '../../core/ports.ts';
import { Time } from './time.tsx';

/** `bannerSaysFailing`: the banner above already says the latest reads failed and since when; not said twice. */
export function FeedHealthNote(props: { health: FeedHealth; bannerSaysFailing?: boolean }) {
  const { lastRun, lastSuccessAt, consecutiveFailures } = props.health;
  if (!lastRun) {
    return <p class="feed-health muted">The vendor's feed has not been read yet.</p>;
  }
  return (
    <>
      {consecutiveFailures > 0 && !props.bannerSaysFailing && (
        <div class="warning" role="status">
          <p>
            <strong>The vendor's status feed cannot be read.</strong>{' '}
            {consecutiveFailures === 1 ? 'The last attempt failed' : `The last ${consecutiveFailures} attempts failed`}
            {lastSuccessAt === null ? (
              '; it has never been read successfully.'
            ) : (
              <>
                ; the last good read was at <Time ms={lastSuccessAt} />.
              </>
            )}{' '}
            What this page shows may be out of date.
          </p>
        </div>
      )}
      <p class="feed-health muted">
        Last checked <Time ms={lastRun.finishedAt} />
        {lastRun.outcome === 'partial' ? ' (part of the feed could not be read)' : ''}.
      </p>
    </>
  );
}
