/** The state right now, in one line at the top of `/`: all clear, or how many incidents and the worst. */
import type { StoredIncident } from '../../core/ports.ts';
import { statusWord } from '../../core/notification-message.ts';

/** `ongoing` is sorted worst first (compareUrgency). */
export function StatusBanner(props: { ongoing: readonly StoredIncident[] }) {
  const worst = props.ongoing[0];
  if (!worst) {
    return (
      <section class="banner banner-ok" aria-labelledby="banner-title">
        <h1 id="banner-title">All clear</h1>
        <p>No incident is going on right now.</p>
      </section>
    );
  }
  const count = props.ongoing.length;
  return (
    <section class={`banner banner-${bannerLevel(worst.type)}`} aria-labelledby="banner-title">
      <h1 id="banner-title">{count === 1 ? '1 incident going on' : `${count} incidents going on`}</h1>
      <p>{typeCounts(props.ongoing)}</p>
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
  return [...counts]
    .map(([type, n]) => `${n} ${statusWord(type).toLowerCase()}${n === 1 ? '' : 's'}`)
    .join(', ');
}
