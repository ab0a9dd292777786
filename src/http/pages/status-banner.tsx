/**
 * The state right now, in one line at the top of `/`: all clear, or how many incidents and the
 * worst; grey "Status unknown" while the feed cannot be read (knowledge.ts), never all clear.
 */
import { type Knowledge, READS_FAILING_WORDS } from '../../core/knowledge.ts';
import type { StoredIncident } from '../../core/ports.ts';
import { statusWord } from '../../core/notification-message.ts';
import { Time } from './time.tsx';

/** `ongoing` is sorted worst first (compareUrgency). */
export function StatusBanner(props: { ongoing: readonly StoredIncident[]; knowledge: Knowledge }) {
  const { knowledge } = props;
  if (knowledge.kind !== 'known') return <UnknownBanner knowledge={knowledge} ongoing={props.ongoing} />;
  const worst = props.ongoing[0];
  // The latest reads failed: the state is what the last good read said, and the banner says when.
  const asOf = knowledge.readsFailing ? (
    <p class="banner-as-of-note">
      {READS_FAILING_WORDS.before}
      <Time ms={knowledge.lastSuccessAt} />
      {READS_FAILING_WORDS.after}
    </p>
  ) : null;
  const asOfClass = knowledge.readsFailing ? ' banner-as-of' : '';
  if (!worst) {
    return (
      <section class={`banner banner-ok${asOfClass}`} aria-labelledby="banner-title">
        <h1 id="banner-title">All clear</h1>
        {asOf ?? <p>No incident is going on right now.</p>}
      </section>
    );
  }
  const count = props.ongoing.length;
  return (
    <section class={`banner banner-${bannerLevel(worst.type)}${asOfClass}`} aria-labelledby="banner-title">
      <h1 id="banner-title">{count === 1 ? '1 incident going on' : `${count} incidents going on`}</h1>
      {/* One incident: its title, not "1 incident" again under "1 incident going on". */}
      <p>{count === 1 ? worst.title : typeCounts(props.ongoing)}</p>
      {asOf}
    </section>
  );
}

/** Blind: what we last knew is said as the past, in grey. */
function UnknownBanner(props: { knowledge: Exclude<Knowledge, { kind: 'known' }>; ongoing: readonly StoredIncident[] }) {
  const count = props.ongoing.length;
  return (
    <section class="banner banner-unknown" aria-labelledby="banner-title">
      <h1 id="banner-title">Status unknown</h1>
      {props.knowledge.kind === 'never-read' ? (
        <p>The vendor's status feed has not been read yet: there is no data on how its services stand.</p>
      ) : (
        <p>
          The vendor's status feed cannot be read: no data since <Time ms={props.knowledge.since} />. Then,{' '}
          {count === 0 ? 'no incident was going on' : count === 1 ? '1 incident was going on' : `${count} incidents were going on`}.
        </p>
      )}
    </section>
  );
}

/** Colours exist for the documented types; anything else the vendor invents reads as an incident. */
function bannerLevel(type: string): string {
  return type === 'outage' || type === 'notice' ? type : 'incident';
}

/** "1 outage, 2 incidents", in the order the incidents are ranked: the worst kind first. */
function typeCounts(ongoing: readonly StoredIncident[]): string {
  const counts = new Map<string, number>();
  for (const incident of ongoing) counts.set(incident.type, (counts.get(incident.type) ?? 0) + 1);
  return [...counts].map(([type, n]) => `${n} ${statusWord(type).toLowerCase()}${n === 1 ? '' : 's'}`).join(', ');
}
