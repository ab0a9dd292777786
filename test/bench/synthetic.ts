/**
 * Deterministic synthetic incidents shaped like the vendor's (real service names, 1-8 HTML notes,
 * Pacific timestamps), and their conversion to our Incident exactly as a poll would parse them.
 */
import { parseHistory } from '../../src/core/feed-schema.ts';
import type { Incident } from '../../src/core/incident.ts';
import { incidentUrl } from '../../src/sim/incident-url.ts';
import { toWireIncident } from '../../src/sim/wire.ts';
import type { SimIncident, SimNote } from '../../src/sim/world.ts';
import { VENDOR_SERVICES } from '../../src/core/service-days.ts';

// The two full-text cases of the query benchmark. No other template contains a word that starts
// with either, so their share is what these constants say (FTS queries are prefix queries).
export const COMMON_WORD = 'degraded';
const COMMON_SHARE = 0.3;
export const RARE_WORD = 'kerberos';
const RARE_INCIDENTS = 5;
/** Files incidents that mention uploads: the `q=upload&service=Files` case. */
const UPLOAD_SHARE_OF_FILES = 0.6;

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
export const YEAR_MS = 365.25 * DAY_MS;

export type SyntheticOptions = {
  count: number;
  /** date_created of the newest incident is just before this instant. */
  endMs: number;
  spanMs: number;
  /** The newest this many are still going on (status active, no resolution note). */
  active: number;
  firstId?: number;
  seed?: number;
};

/** Oldest first; ids ascend with date_created, as the vendor's do. */
export function syntheticIncidents(options: SyntheticOptions): SimIncident[] {
  const random = mulberry32(options.seed ?? 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const firstId = options.firstId ?? 1;
  const rareEvery = Math.max(1, Math.floor(options.count / RARE_INCIDENTS));
  const incidents: SimIncident[] = [];

  for (let i = 0; i < options.count; i++) {
    const id = firstId + i;
    const createdMs = wholeSecond(options.endMs - options.spanMs + ((i + random()) * options.spanMs) / options.count);
    const ongoing = i >= options.count - options.active;
    const services = pickServices(random);
    const service = services[0]!;
    const typeRoll = random();
    const type = typeRoll < 0.08 ? 'outage' : typeRoll < 0.25 ? 'notice' : 'incident';
    const mentionsUpload = services.includes('Files') && random() < UPLOAD_SHARE_OF_FILES;

    const noteCount = ongoing ? 1 + Math.floor(random() * 3) : 1 + Math.floor(random() * 8);
    const bodies: string[] = [firstNote(service, pick)];
    for (let n = 1; n < noteCount; n++) bodies.push(n === noteCount - 1 && !ongoing ? resolvedNote(service, pick) : pick(UPDATES));
    if (random() < COMMON_SHARE) bodies[0] += '<p>Some users may notice degraded performance while we work on this.</p>';
    if (i % rareEvery === rareEvery - 1) bodies[bodies.length - 1] += '<p>Sign-in through Kerberos identity providers is affected.</p>';
    if (mentionsUpload) bodies[0] += '<p>Affected users may be unable to upload files or see previews of uploaded images.</p>';

    let atMs = createdMs;
    const notes: SimNote[] = bodies.map((body, n) => {
      if (n > 0) atMs += wholeSecond((5 + random() * 115) * MINUTE_MS);
      return { body, dateCreatedMs: atMs };
    });
    incidents.push({
      id,
      title: mentionsUpload ? 'Some users are unable to upload files' : title(type, service, pick),
      type,
      status: ongoing ? 'active' : 'resolved',
      url: incidentUrl(id, createdMs),
      services,
      dateCreatedMs: createdMs,
      dateUpdatedMs: atMs,
      notes,
    });
  }
  return incidents;
}

/** The incidents as the poller sees them: rendered in the vendor's wire shape, then parsed. */
export function toIncidents(sims: readonly SimIncident[]): Incident[] {
  const doc = parseHistory(sims.map((s) => toWireIncident(s, { style: 'modern', idAsString: false })));
  if (doc.problems.length > 0) throw new Error(`synthetic incidents did not parse: ${JSON.stringify(doc.problems.slice(0, 3))}`);
  return doc.incidents;
}

function pickServices(random: () => number): string[] {
  const roll = random();
  const wanted = roll < 0.7 ? 1 : roll < 0.95 ? 2 : 3;
  const chosen = new Set<string>();
  while (chosen.size < wanted) chosen.add(VENDOR_SERVICES[Math.floor(random() * VENDOR_SERVICES.length)]!);
  return [...chosen];
}

function title(type: string, service: string, pick: <T>(list: readonly T[]) => T): string {
  if (type === 'notice') return `Scheduled maintenance for ${service}`;
  if (type === 'outage') return `${service} is unavailable for some users`;
  return pick([
    `Some users may be having trouble with ${service}`,
    `Delays affecting ${service}`,
    `Intermittent errors with ${service}`,
    `Issues affecting ${service} for a subset of customers`,
  ]);
}

function firstNote(service: string, pick: <T>(list: readonly T[]) => T): string {
  const trouble = pick(['trouble loading', 'errors when using', 'delays with', 'issues connecting to']);
  return `<p>We're investigating&nbsp;reports of ${trouble} ${service}. We apologize for the disruption and we'll share an update as soon as we have more information.</p>`;
}

function resolvedNote(service: string, pick: <T>(list: readonly T[]) => T): string {
  const cause = pick(['a recent change', 'a configuration change', 'an issue with one of our database clusters', 'a third-party provider']);
  return `<p>We've resolved the issue affecting ${service}, which was caused by ${cause}. If you're still seeing problems, please reach out to us at feedback@slack.com and we'll be happy to help.</p>`;
}

const UPDATES = [
  "<p>Our engineering team is continuing to look into the cause of this issue. Affected users may need to refresh their client (Ctrl/Cmd + Shift + R) once we've deployed a fix. Thanks for bearing with us.</p>",
  "<p>We've identified the cause and are working on a fix. We'll share more news as soon as it becomes available.</p>",
  "<p>We're still working on a fix. In the meantime, a subset of customers may see errors or slow responses.&nbsp;</p>",
  "<p>We've deployed a fix to a subset of workspaces and are monitoring the results before rolling it out everywhere.</p><p><br></p><p>We'll provide another update within the next hour.</p>",
  '<p>We are continuing to monitor the situation. Apps &amp; integrations should be working normally for most users now.</p>',
];

function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** A small seeded PRNG, so every run benchmarks the same data. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
