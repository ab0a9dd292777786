/** The archive's tables (Drizzle, SQLite dialect): shared by better-sqlite3 and, later, D1. */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// Instants are stored as epoch milliseconds in plain integers: `mode: 'timestamp'` would keep
// seconds and make every millisecond comparison with the vendor's times look like a change.

/**
 * The latest version of each incident. `sort_key` orders the archive newest first: date_created
 * in seconds times a million, plus a counter for incidents created in the same second. It is also the
 * rowid of the full-text index, so a search walks matches already in list order and stops after
 * one page instead of sorting every match.
 */
export const incidents = sqliteTable(
  'incidents',
  {
    pk: integer('pk').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    sortKey: integer('sort_key').notNull(),
    title: text('title').notNull(),
    type: text('type').notNull(),
    status: text('status').notNull(),
    url: text('url').notNull(),
    servicesJson: text('services_json').notNull(),
    dateCreated: text('date_created').notNull(),
    dateUpdated: text('date_updated').notNull(),
    createdMs: integer('created_ms').notNull(),
    updatedMs: integer('updated_ms').notNull(),
    resolvedMs: integer('resolved_ms'),
    firstSeenMs: integer('first_seen_ms').notNull(),
    lastSeenMs: integer('last_seen_ms').notNull(),
    revision: integer('revision').notNull(),
  },
  (t) => [
    uniqueIndex('incidents_id').on(t.id),
    uniqueIndex('incidents_sort_key').on(t.sortKey),
    index('incidents_updated').on(t.updatedMs),
    // resolved_ms is null exactly while an incident goes on (diff.ts resolvedAt): the mirror's
    // "current" reads this small index instead of scanning the archive.
    index('incidents_ongoing').on(t.updatedMs).where(sql`${t.resolvedMs} IS NULL`),
    // The track record reads incidents resolved since a date (plus the ongoing ones, above).
    index('incidents_resolved').on(t.resolvedMs),
    index('incidents_status_sort').on(t.status, t.sortKey),
    index('incidents_type_sort').on(t.type, t.sortKey),
  ],
);

/**
 * Each incident's JSON as lists show it, in two parts around last_seen_at (sqlite-incident-json.ts),
 * written with the incident and its notes: a page of 1,000 joins stored texts instead of building
 * them. Its own table, so the incidents rows every other read scans stay narrow.
 */
export const incidentListedJson = sqliteTable('incident_listed_json', {
  incidentPk: integer('incident_pk').primaryKey(),
  /** The incident's revision the texts were written for: a page builds them afresh for any other. */
  revision: integer('revision').notNull(),
  jsonHead: text('json_head').notNull(),
  jsonTail: text('json_tail').notNull(),
});

/** One row per incident and affected service, so that a service filter is an index lookup. */
export const incidentServices = sqliteTable(
  'incident_services',
  {
    incidentPk: integer('incident_pk').notNull(),
    service: text('service').notNull(),
    sortKey: integer('sort_key').notNull(),
  },
  (t) => [primaryKey({ columns: [t.incidentPk, t.service] }), index('incident_services_service').on(t.service, t.sortKey)],
);

export const notes = sqliteTable(
  'notes',
  {
    incidentId: text('incident_id').notNull(),
    key: text('key').notNull(),
    dateCreated: text('date_created').notNull(),
    createdMs: integer('created_ms').notNull(),
    /** The counter of the key: orders notes that share an instant. */
    seq: integer('seq').notNull(),
    body: text('body').notNull(),
    /** The body as plain text, HTML stripped: for lists and search without converting on read. */
    text: text('text').notNull(),
    firstSeenMs: integer('first_seen_ms').notNull(),
    /** When we last saw the body change (an in-place edit), or first saw it. */
    changedMs: integer('changed_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.incidentId, t.key] }), index('notes_latest').on(t.incidentId, t.createdMs, t.seq)],
);

/** Every version of every incident, whole, as we normalised it: the record after the vendor forgets. */
export const incidentVersions = sqliteTable(
  'incident_versions',
  {
    incidentId: text('incident_id').notNull(),
    revision: integer('revision').notNull(),
    snapshotJson: text('snapshot_json').notNull(),
    recordedMs: integer('recorded_ms').notNull(),
    pollRunId: text('poll_run_id'),
  },
  (t) => [primaryKey({ columns: [t.incidentId, t.revision] })],
);

export const events = sqliteTable(
  'events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    type: text('type').notNull(),
    incidentId: text('incident_id').notNull(),
    revision: integer('revision').notNull(),
    occurredMs: integer('occurred_ms').notNull(),
    detectedMs: integer('detected_ms').notNull(),
    backfill: integer('backfill', { mode: 'boolean' }).notNull(),
    dataJson: text('data_json').notNull(),
    pollRunId: text('poll_run_id'),
  },
  (t) => [
    uniqueIndex('events_id').on(t.id),
    index('events_incident').on(t.incidentId, t.seq),
    index('events_type').on(t.type, t.seq),
    // The MCP tool recent_changes asks "what changed since T": without it, a scan of the whole log.
    index('events_detected').on(t.detectedMs),
  ],
);

export const pollRuns = sqliteTable(
  'poll_runs',
  {
    id: text('id').primaryKey(),
    startedMs: integer('started_ms').notNull(),
    finishedMs: integer('finished_ms').notNull(),
    outcome: text('outcome', { enum: ['ok', 'partial', 'failed'] }).notNull(),
    sourcesJson: text('sources_json').notNull(),
    changesJson: text('changes_json').notNull(),
    eventCount: integer('event_count').notNull(),
    // Changed incidents left for the next polls: more changed than one poll may write.
    pendingIncidents: integer('pending_incidents').notNull().default(0),
    error: text('error'),
  },
  (t) => [index('poll_runs_started').on(t.startedMs), index('poll_runs_outcome').on(t.outcome, t.startedMs)],
);

/**
 * Payloads that were not a feed at all, kept raw so a human can see what the vendor sent: one row
 * per distinct body (its SHA-256), however often it came. A vendor serving the same 1 MB error page
 * for a day costs one copy and a counter, not 4 GB. Pruned by age of `last_seen_ms` and by a total
 * size cap (sqlite-retention.ts).
 */
export const rejectedBodies = sqliteTable(
  'rejected_bodies',
  {
    /** Hex SHA-256 of the body as received (before it is capped for storage). */
    hash: text('hash').primaryKey(),
    /** UTF-8 size of the stored text: what the size cap adds up. */
    bytes: integer('bytes').notNull(),
    seenCount: integer('seen_count').notNull(),
    firstSeenMs: integer('first_seen_ms').notNull(),
    lastSeenMs: integer('last_seen_ms').notNull(),
  },
  (t) => [index('rejected_bodies_last_seen').on(t.lastSeenMs)],
);

/**
 * The text of each rejected body, written once and never updated. Apart from the counters because
 * SQLite rewrites a whole row on UPDATE: counting a 1 MB body in its own row rewrote the megabyte
 * on every poll and kept a second copy's pages on the free list.
 */
export const rejectedBodyTexts = sqliteTable('rejected_body_texts', {
  hash: text('hash').primaryKey(),
  body: text('body').notNull(),
});

/** Which poll run refused which body, from which endpoint and why; deleted with its poll run. */
export const pollRunRejections = sqliteTable(
  'poll_run_rejections',
  {
    pollRunId: text('poll_run_id').notNull(),
    source: text('source').notNull(),
    url: text('url').notNull(),
    error: text('error').notNull(),
    /** rejected_bodies.hash; the body may have been pruned since (then the run says only why). */
    bodyHash: text('body_hash').notNull(),
    receivedMs: integer('received_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.pollRunId, t.source] })],
);

/** Small facts about the archive itself (seeded, the cursor signing key). */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/** Named leases so that only one process polls at a time, even on a shared database file. */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresMs: integer('expires_ms').notNull(),
});

/**
 * Room in sort_key for this many incidents created in the same second (the vendor's times are
 * whole seconds). A 5 MB feed holds at most some 50,000 incidents, so no feed can fill a
 * second's block; and seconds times a million stay below 2^53 until the year 2255.
 */
export const SORT_KEYS_PER_SECOND = 1_000_000;

/** Full-text search over titles and note bodies: created by a hand-written migration (FTS5). */
export const INCIDENTS_FTS = 'incidents_fts';
export const ftsMatch = (query: string) => sql`${sql.identifier(INCIDENTS_FTS)} MATCH ${query}`;

/**
 * Who hears of which changes, and where. Webhook signing secrets, and the routing key or API key of
 * a pagerduty or opsgenie subscription, are stored sealed (secret-box.ts):
 * `secret_sealed` signs, and during a rotation `previous_secret_sealed` signs too until
 * `previous_secret_until_ms`.
 */
export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    channel: text('channel', { enum: ['webhook', 'email', 'channel', 'app', 'pagerduty', 'opsgenie', 'teams', 'discord'] }).notNull(),
    target: text('target').notNull(),
    /** The name of a target that is an id (an app subscription's conversation), as the vendor gave it when the subscription was made. */
    targetName: text('target_name'),
    filtersJson: text('filters_json').notNull(),
    timeZone: text('time_zone').notNull(),
    status: text('status', { enum: ['pending', 'active', 'paused'] }).notNull(),
    /** Who made it: `admin` (the API) or `public` (the sign-up form, double opt-in). */
    origin: text('origin', { enum: ['admin', 'public'] }).notNull(),
    pausedReason: text('paused_reason'),
    secretSealed: text('secret_sealed'),
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretUntilMs: integer('previous_secret_until_ms'),
    /** Start of the current unbroken run of failed attempts; null after any success. */
    failingSinceMs: integer('failing_since_ms'),
    lastSuccessMs: integer('last_success_ms'),
    createdMs: integer('created_ms').notNull(),
    updatedMs: integer('updated_ms').notNull(),
  },
  (t) => [
    index('subscriptions_status').on(t.status),
    index('subscriptions_target').on(t.channel, t.target),
    // One app subscription per conversation, also when two admins create it at once.
    uniqueIndex('subscriptions_app_target').on(t.target).where(sql`channel = 'app'`),
    // Pruning unconfirmed sign-ups walks only the pending ones, oldest first.
    index('subscriptions_pending_created').on(t.createdMs).where(sql`status = 'pending'`),
  ],
);

/**
 * The outbox: one row per (event or incident group, subscription), written in the poll's own
 * transaction. `key` is deterministic (fanout.ts), so planning a poll twice never sends twice.
 * A pending row is claimed by a deliverer with a lease (`claimed_by` until `claim_until_ms`).
 */
export const deliveries = sqliteTable(
  'deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    key: text('key').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    channel: text('channel', { enum: ['webhook', 'email', 'channel', 'app', 'pagerduty', 'opsgenie', 'teams', 'discord'] }).notNull(),
    eventIdsJson: text('event_ids_json').notNull(),
    state: text('state', { enum: ['pending', 'done', 'dead'] }).notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptMs: integer('next_attempt_ms').notNull(),
    claimedBy: text('claimed_by'),
    claimUntilMs: integer('claim_until_ms'),
    createdMs: integer('created_ms').notNull(),
    /** When it was confirmed (2xx, SMTP 250) or given up. */
    finishedMs: integer('finished_ms'),
    lastError: text('last_error'),
  },
  (t) => [
    uniqueIndex('deliveries_key').on(t.key),
    // What the deliverer scans every few seconds: only pending rows, by due time.
    index('deliveries_due').on(t.nextAttemptMs).where(sql`state = 'pending'`),
    index('deliveries_subscription').on(t.subscriptionId, t.id),
    // The claim's check for an earlier delivery of the same subscription still in flight.
    index('deliveries_pending_subscription').on(t.subscriptionId, t.id).where(sql`state = 'pending'`),
    index('deliveries_created').on(t.createdMs),
  ],
);

/** Every attempt at a delivery: when, how it ended, and a bounded excerpt of the answer. */
export const deliveryAttempts = sqliteTable(
  'delivery_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deliveryId: integer('delivery_id').notNull(),
    attemptedMs: integer('attempted_ms').notNull(),
    ok: integer('ok', { mode: 'boolean' }).notNull(),
    status: integer('status'),
    durationMs: integer('duration_ms').notNull(),
    responseExcerpt: text('response_excerpt').notNull(),
    error: text('error'),
  },
  (t) => [index('delivery_attempts_delivery').on(t.deliveryId, t.id)],
);

/** Email link tokens (confirm, unsubscribe, manage), stored only as their hash. */
export const linkTokens = sqliteTable(
  'link_tokens',
  {
    hash: text('hash').primaryKey(),
    purpose: text('purpose', { enum: ['confirm', 'unsubscribe', 'manage'] }).notNull(),
    subscriptionId: text('subscription_id').notNull(),
    expiresMs: integer('expires_ms').notNull(),
    usedMs: integer('used_ms'),
  },
  (t) => [index('link_tokens_subscription').on(t.subscriptionId), index('link_tokens_expires').on(t.expiresMs)],
);

/** Sliding-window rate limit logs (rate-limit.ts), shared by every process on the file. */
export const rateLimits = sqliteTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    hitsJson: text('hits_json').notNull(),
    expiresMs: integer('expires_ms').notNull(),
  },
  // Pruning expired rows seeks here instead of scanning every key (retention.ts).
  (t) => [index('rate_limits_expires').on(t.expiresMs)],
);

/**
 * Admin sessions (admin-session.ts): the cookie carries a random id, stored here only as its
 * SHA-256, with a fingerprint of the ADMIN_TOKEN that made it (never the token). Signing out
 * deletes the row; a new token ends every session of the old one. At most 100 rows.
 */
export const adminSessions = sqliteTable('admin_sessions', {
  idHash: text('id_hash').primaryKey(),
  tokenFingerprint: text('token_fingerprint').notNull(),
  createdMs: integer('created_ms').notNull(),
  expiresMs: integer('expires_ms').notNull(),
  lastSeenMs: integer('last_seen_ms').notNull(),
});

/**
 * The vendor app's installations, one per team. Tokens only sealed by the secret box.
 * The refresh token's sealed text is the compare-and-swap key of a rotation: sealing is random, so
 * it names one issued token. `refresh_claimed_ms` records a refresh before the vendor is called.
 */
export const appInstallations = sqliteTable('app_installations', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull().unique(),
  /** The workspace's name at the last install, for the admin pages; null when the vendor gave none. */
  teamName: text('team_name'),
  botUserId: text('bot_user_id').notNull(),
  scopesJson: text('scopes_json').notNull(),
  accessTokenSealed: text('access_token_sealed'),
  refreshTokenSealed: text('refresh_token_sealed'),
  accessExpiresMs: integer('access_expires_ms').notNull(),
  state: text('state', { enum: ['active', 'broken', 'uninstalled'] }).notNull(),
  reason: text('reason'),
  refreshClaimedMs: integer('refresh_claimed_ms'),
  createdMs: integer('created_ms').notNull(),
  updatedMs: integer('updated_ms').notNull(),
});

/**
 * Keys that may be used once, for a while: the OAuth `state` of an install in progress
 * (consumed by its callback), and the signatures of slash commands already answered (a replay is
 * refused). Each kind holds at most a fixed number of rows (one_time_keys port); expired rows go
 * on the next write of their kind.
 */
export const oneTimeKeys = sqliteTable(
  'one_time_keys',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    payload: text('payload').notNull(),
    createdMs: integer('created_ms').notNull(),
    expiresMs: integer('expires_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] }), index('one_time_keys_kind_created').on(t.kind, t.createdMs)],
);

/**
 * Bearer tokens the admin made for MCP clients (MCP_AUTH=token): only the SHA-256 of the
 * token is kept, so the table cannot give a token back. Revoking deletes the row; the number of
 * rows is bounded by the store (MCP_TOKENS_MAX).
 */
export const mcpTokens = sqliteTable('mcp_tokens', {
  id: text('id').primaryKey(),
  label: text('label').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdMs: integer('created_ms').notNull(),
});

/**
 * The jti of every ID-JAG spent at the EMA token endpoint, until the assertion expires: a second
 * use is a replay. Rows go once expired; the count of live rows is bounded by the store.
 */
export const mcpSpentAssertions = sqliteTable(
  'mcp_spent_assertions',
  {
    key: text('key').primaryKey(),
    expiresMs: integer('expires_ms').notNull(),
  },
  (t) => [index('mcp_spent_assertions_expires').on(t.expiresMs)],
);

/**
 * The workspace app's one message per incident and conversation: which root message
 * (`root_ts`) shows the incident in a subscription's conversation, and what it shows. The row is
 * written before the root is posted (`root_ts` null, `root_key` the delivery posting it), so after
 * a crash between the post and its record the next attempt knows to look for the message it may
 * have posted instead of posting a second one (app/workspace-app/message-sender.ts). Likewise
 * `pending_replies` lists the deliveries whose thread reply was started.
 * One row per incident a subscription was told of; retention removes it half a year after the
 * incident ended (core/retention.ts).
 */
export const appMessages = sqliteTable(
  'app_messages',
  {
    subscriptionId: text('subscription_id').notNull(),
    incidentId: text('incident_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    rootTs: text('root_ts'),
    rootKey: text('root_key').notNull(),
    /** The incident revision the root shows: an older delivery retried late never edits it back. */
    revision: integer('revision').notNull(),
    /** The newest note the root shows (JSON NoteRef): a later update with no note keeps showing it. */
    noteJson: text('note_json'),
    /** JSON list of the delivery keys whose reply was started (the newest 50): a retry of one looks in the thread first. */
    pendingReplies: text('pending_replies').notNull().default('[]'),
    createdMs: integer('created_ms').notNull(),
    updatedMs: integer('updated_ms').notNull(),
  },
  // Retention finds the records left untouched the longest (sqlite-retention.ts).
  (t) => [primaryKey({ columns: [t.subscriptionId, t.incidentId] }), index('app_messages_updated').on(t.updatedMs)],
);

/**
 * The workspace app's monitor messages (`monitor.blind`, `monitor.recovered`),
 * one row per delivery: written before the post (`ts` null), so a retry after a crash or a lost
 * answer looks in the conversation's history for the message it may have posted instead of posting
 * a second one (app/workspace-app/message-sender.ts). The newest 50 rows of a subscription are kept, and its
 * rows go with it.
 */
export const appMonitorPosts = sqliteTable(
  'app_monitor_posts',
  {
    subscriptionId: text('subscription_id').notNull(),
    deliveryKey: text('delivery_key').notNull(),
    ts: text('ts'),
    createdMs: integer('created_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.deliveryKey] }), index('app_monitor_posts_subscription_created').on(t.subscriptionId, t.createdMs)],
);

/**
 * A conversation the vendor rate-limited (429 with Retry-After): every delivery to it waits until
 * `until_ms`, in any process, while other conversations keep flowing. One row per conversation;
 * retention deletes expired holds (by `until_ms`), so the table holds only conversations held now.
 */
export const appConversationHolds = sqliteTable(
  'app_conversation_holds',
  {
    installationId: text('installation_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    untilMs: integer('until_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.conversationId] }), index('app_conversation_holds_until').on(t.untilMs)],
);

/**
 * Group subscriptions: which SCIM group a subscription reads its recipients from, and
 * how its last sync went. `revision` is bumped by each good sync, so two syncs of one group never
 * both write (the later one's write is conditional on the revision it read).
 */
export const scimGroups = sqliteTable('scim_groups', {
  subscriptionId: text('subscription_id').primaryKey(),
  groupId: text('group_id').notNull(),
  groupName: text('group_name').notNull(),
  syncedMs: integer('synced_ms'),
  outcome: text('outcome', { enum: ['never', 'ok', 'failed'] }).notNull(),
  error: text('error'),
  lastOkMs: integer('last_ok_ms'),
  version: text('version', { enum: ['v2', 'v1'] }),
  groupDeleted: integer('group_deleted').notNull(),
  revision: integer('revision').notNull(),
  /** Members on the list, as the last good sync wrote it (read with every link: not counted each time). */
  memberCount: integer('member_count').notNull().default(0),
});

/** Members as the last good sync read them; each good sync writes only who joined, left or changed. */
export const scimMembers = sqliteTable(
  'scim_members',
  {
    subscriptionId: text('subscription_id').notNull(),
    userId: text('user_id').notNull(),
    email: text('email'),
    active: integer('active').notNull(),
    timeZone: text('time_zone'),
    displayName: text('display_name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.userId] })],
);

/**
 * Members who unsubscribed from one group's alerts: kept apart from the member list, so a sync
 * keeps a mute while its member stays in the group (and drops it when the member leaves).
 */
export const scimMutes = sqliteTable(
  'scim_mutes',
  {
    subscriptionId: text('subscription_id').notNull(),
    userId: text('user_id').notNull(),
    mutedMs: integer('muted_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.userId] })],
);

/** The audit list: who was added or removed and why, and failed syncs; the newest N per group are kept. */
export const scimGroupLog = sqliteTable(
  'scim_group_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    subscriptionId: text('subscription_id').notNull(),
    atMs: integer('at_ms').notNull(),
    userId: text('user_id'),
    email: text('email'),
    displayName: text('display_name'),
    change: text('change').notNull(),
    detail: text('detail'),
  },
  (t) => [index('scim_group_log_subscription').on(t.subscriptionId, t.id)],
);

/**
 * Per-member sends of a group delivery, keyed by the delivery's message id: a retry after a crash
 * or a temporary refusal sends only to members not in here. Pruned by age.
 */
export const scimMemberSends = sqliteTable(
  'scim_member_sends',
  {
    deliveryKey: text('delivery_key').notNull(),
    userId: text('user_id').notNull(),
    state: text('state', { enum: ['sent', 'refused'] }).notNull(),
    atMs: integer('at_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deliveryKey, t.userId] }), index('scim_member_sends_at').on(t.atMs)],
);

/**
 * Status pages watched beside the main feed (kind `statuspage`), each added by an admin. The poll
 * state of each lives on its row: the validators of each endpoint it reads (JSON of path to
 * { etag, lastModified }), its last good and failed reads, its failures since, and when its
 * current blindness episode began and was told, so one source's state never waits on another's.
 */
export const sources = sqliteTable(
  'sources',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['statuspage'] }).notNull(),
    name: text('name').notNull(),
    url: text('url').notNull(),
    createdMs: integer('created_ms').notNull(),
    validators: text('validators').notNull().default('{}'),
    lastSuccessMs: integer('last_success_ms'),
    lastFailureMs: integer('last_failure_ms'),
    lastError: text('last_error'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    blindSinceMs: integer('blind_since_ms'),
    blindToldMs: integer('blind_told_ms'),
    /**
     * When an admin asked for the source's archive to be deleted with it; null while it is
     * watched. The row stays until the last of its archive is gone (deleted in batches), so its
     * id is never reused and no poll writes to it meanwhile; no face lists it.
     */
    purgingMs: integer('purging_ms'),
  },
  (t) => [uniqueIndex('sources_url').on(t.url)],
);

/** Each source's components as its last good read showed them: a change of state is an event. */
export const sourceComponents = sqliteTable(
  'source_components',
  {
    sourceId: text('source_id').notNull(),
    componentId: text('component_id').notNull(),
    name: text('name').notNull(),
    groupId: text('group_id'),
    isGroup: integer('is_group').notNull(),
    position: integer('position'),
    /** Ours (`unknown` for a word we do not know) and the vendor's own word. */
    status: text('status').notNull(),
    vendorStatus: text('vendor_status').notNull(),
    /** When the status last changed (or the component was first seen), epoch ms. */
    updatedMs: integer('updated_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.componentId] })],
);

/**
 * Each source's past blind spells: from its last good read before it went unread to the first good
 * read after, so its track record counts that time as no data once it is read again. Bounded: at
 * most BLIND_SPELLS_PER_SOURCE a source (the two oldest merge), and retention deletes those that
 * ended before the track record's reach (core/retention.ts).
 */
export const sourceBlindSpells = sqliteTable(
  'source_blind_spells',
  {
    sourceId: text('source_id').notNull(),
    sinceMs: integer('since_ms').notNull(),
    untilMs: integer('until_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.sinceMs] }), index('source_blind_spells_until').on(t.untilMs)],
);
