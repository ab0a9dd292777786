/**
 * How long what outside input can grow is kept, as the cutoffs one prune at `now` applies. Pure:
 * every runtime prunes alike, and the rules are tested with plain numbers.
 */
import { CONFIRM_TOKEN_TTL_MS } from './confirmation-token.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Expired link tokens stay this long after expiry, so that an old link still gets the true answer
 * ("this link has expired", "already confirmed") rather than "not valid". Bounded all the same:
 * sign-ups are rate-limited, and nothing is kept past expiry plus this.
 */
export const EXPIRED_TOKEN_KEPT_MS = 30 * DAY_MS;

/**
 * A group delivery's per-member sends stay this long: they are what keeps a retry from mailing a
 * member twice, so they must outlive every retry of their delivery by far. The retry schedule
 * gives up after at most 33.1 h (retry-schedule.ts, fully jittered); a group mail never answers
 * with a Retry-After, and a big group's turns follow at once. Only a delivery whose subscription
 * was paused mid-way and resumed more than this later could mail a member again.
 */
export const MEMBER_SENDS_KEPT_MS = 30 * DAY_MS;

/**
 * A chat message about an incident (the workspace app's, Teams', Discord's: one per incident and
 * subscription, edited in place) keeps its record this long after its last edit once the incident
 * has ended. Vendors edit recent incidents, not ones ended half a year ago; should one change
 * after all, a new message is posted for it, as for a subscription made after the incident.
 * Without this the records would grow with every incident the vendor ever had, per subscription.
 */
export const INCIDENT_MESSAGES_KEPT_MS = 180 * DAY_MS;

/**
 * A source's blind spells stay this long after they ended: longer than the track record reaches
 * back (reliability.ts reliabilitySince: twelve calendar months, or the longest window).
 */
export const BLIND_SPELLS_KEPT_MS = 400 * DAY_MS;

/**
 * Blind spells kept per source. A spell lasts the staleness limit at least, so only a page that
 * flickers blind more often than this within BLIND_SPELLS_KEPT_MS reaches it; then its two oldest
 * spells are merged (with the read time between them): its track record counts a little too much
 * as no data, never too little.
 */
export const BLIND_SPELLS_PER_SOURCE = 500;

/** The settings (config.ts): RETENTION_POLL_RUNS_DAYS, RETENTION_REJECTED_PAYLOADS_DAYS, REJECTED_PAYLOADS_MAX_BYTES. */
export type RetentionSettings = {
  pollRunsDays: number;
  rejectedPayloadsDays: number;
  rejectedPayloadsMaxBytes: number;
};

export const DEFAULT_RETENTION: RetentionSettings = {
  pollRunsDays: 30,
  rejectedPayloadsDays: 30,
  rejectedPayloadsMaxBytes: 50_000_000,
};

export type PruneCutoffs = {
  /** Poll runs started before this go, except the newest run and the newest successful one (/healthz reads them). */
  pollRunsBeforeMs: number;
  /** Rejected bodies last seen before this go... */
  rejectedBodiesBeforeMs: number;
  /** ...and the least recently seen go while the rest add up to more than this (the newest one always stays). */
  rejectedBodiesMaxBytes: number;
  /** Unconfirmed sign-ups created before this go once none of their confirmation links is still valid. */
  pendingSignupsBeforeMs: number;
  /** Link tokens that expired before this go. */
  tokensExpiredBeforeMs: number;
  /** Rate-limit logs whose window ended at or before this go: they can no longer refuse anything. */
  rateLimitsExpiredByMs: number;
  /** The app's conversation holds that ended at or before this go: they hold nothing back any more. */
  appHoldsExpiredByMs: number;
  /** Group deliveries' per-member sends recorded before this go: no retry of their delivery is left. */
  memberSendsBeforeMs: number;
  /** Chat messages about an ended incident, last edited before this, go: their incident is no longer edited. */
  incidentMessagesBeforeMs: number;
  /** Sources' blind spells that ended before this go: the track record no longer reaches them. */
  blindSpellsEndedBeforeMs: number;
};

export function pruneCutoffs(now: number, settings: RetentionSettings): PruneCutoffs {
  return {
    pollRunsBeforeMs: now - settings.pollRunsDays * DAY_MS,
    rejectedBodiesBeforeMs: now - settings.rejectedPayloadsDays * DAY_MS,
    rejectedBodiesMaxBytes: settings.rejectedPayloadsMaxBytes,
    // A sign-up's first link is issued as it is created, so none can be valid before this.
    pendingSignupsBeforeMs: now - CONFIRM_TOKEN_TTL_MS,
    tokensExpiredBeforeMs: now - EXPIRED_TOKEN_KEPT_MS,
    rateLimitsExpiredByMs: now,
    appHoldsExpiredByMs: now,
    memberSendsBeforeMs: now - MEMBER_SENDS_KEPT_MS,
    incidentMessagesBeforeMs: now - INCIDENT_MESSAGES_KEPT_MS,
    blindSpellsEndedBeforeMs: now - BLIND_SPELLS_KEPT_MS,
  };
}

/** What one prune removed, by kind: logged in one line. */
export type PruneCounts = {
  pollRuns: number;
  rejectedBodies: number;
  pendingSignups: number;
  linkTokens: number;
  rateLimits: number;
  appConversationHolds: number;
  groupMemberSends: number;
  incidentMessages: number;
  blindSpells: number;
  /** Poll leases of sources no longer watched, left by a poll killed at the wrong moment. */
  sourceLeases: number;
  /** Rows of the archives of sources removed with `?purge=true` that their request left (app/source-purge.ts). */
  purgedSourceRows: number;
};
