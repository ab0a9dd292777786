/** The body of `/`: the state now, the incidents going on, 90 days of each service (30 on a phone), and the feed's health. */
import type { Knowledge } from '../../core/knowledge.ts';
import type { FeedHealth, StoredIncident } from '../../core/ports.ts';
import type { ServiceDayRow } from '../../core/service-days.ts';
import type { WidgetState } from '../../core/widget-state.ts';
import type { SourceOverview } from '../../app/source-status.ts';
import { FeedHealthNote } from './feed-health.tsx';
import { IncidentCard } from './incident-card.tsx';
import type { Sanitize } from './note-timeline.tsx';
import { ByWidth, NARROW_BAR_DAYS, ServiceBars } from './service-bars.tsx';
import { SourcesOverview } from './source-pages.tsx';
import { StatusBanner } from './status-banner.tsx';

export type StatusPageData = {
  /** Worst first. */
  ongoing: StoredIncident[];
  health: FeedHealth;
  /** What the page may claim: blind, the banner says "Status unknown". */
  knowledge: Knowledge;
  rows: ServiceDayRow[];
  days: number;
  /** Each row's state now (serviceStatesNow): `unknown` for every row while blind. */
  now: ReadonlyMap<string, WidgetState>;
  /** Each row's availability over the bars' window, as /reliability counts it; null: no data. */
  availability: ReadonlyMap<string, number | null>;
  /** The status pages watched beside the main feed, each with its state now. */
  sources: readonly SourceOverview[];
};

export function StatusPage(props: { data: StatusPageData; sanitize: Sanitize }) {
  const { ongoing, health, rows, days, knowledge } = props.data;
  return (
    <>
      <StatusBanner ongoing={ongoing} knowledge={knowledge} />
      <FeedHealthNote health={health} bannerSaysFailing={knowledge.kind === 'known' && knowledge.readsFailing} />
      {ongoing.length > 0 && (
        <section aria-labelledby="ongoing-title">
          <h2 id="ongoing-title">{knowledge.kind === 'known' ? 'Going on now' : 'Going on when the feed was last read'}</h2>
          {ongoing.map((incident) => (
            <IncidentCard incident={incident} sanitize={props.sanitize} />
          ))}
        </section>
      )}
      <section aria-labelledby="services-title">
        <h2 id="services-title">
          Services, last <ByWidth wide={days} narrow={Math.min(days, NARROW_BAR_DAYS)} /> days
        </h2>
        <p class="muted">Each bar is a day (UTC), coloured by the worst incident that touched it; hover or focus a day to see which.</p>
        <ServiceBars rows={rows} now={props.data.now} availability={props.data.availability} />
      </section>
      <SourcesOverview sources={props.data.sources} />
      <p>
        <a href="/incidents">All past incidents</a>
      </p>
    </>
  );
}
