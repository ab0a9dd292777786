/**
 * The simulated on-call tools' rules, without I/O: PagerDuty's Events API v2 and Opsgenie's Alert
 * API as they document them, answering what they answer and keeping the alerts they would hold.
 * What they check: PagerDuty's summary at most 1024 characters and dedup_key at most 255, its
 * three event actions and four severities (Events API v2 reference); Opsgenie's message at most 130
 * characters and alias at most 512, a note at most 25,000 (Alert API reference).
 * Anyone who can reach the simulator decides what arrives: alerts and their history are bounded.
 */

/**
 * `triggers` and `resolveEvents` count the events as they came, repeats included; `resolves` counts
 * only those that resolved an open alert and `openedTimes` the triggers that opened one, as
 * PagerDuty's own incident log would show them.
 */
export type PagerDutyAlertState = {
  dedupKey: string;
  status: 'triggered' | 'resolved';
  triggers: number;
  resolves: number;
  resolveEvents: number;
  openedTimes: number;
  summary: string;
};
export type OpsgenieAlertState = {
  alias: string;
  status: 'open' | 'closed';
  message: string;
  creates: number;
  closes: number;
  notes: string[];
  openedTimes: number;
};

export type ToolAnswer = { status: number; body: unknown; headers?: Record<string, string> };

export type OnCallToolsLimits = {
  /** Alerts each tool keeps; the oldest is forgotten first (default 1,000). */
  maxAlerts: number;
  /** Notes one Opsgenie alert keeps, the newest (default 100). */
  maxNotesPerAlert: number;
};

const PD_SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);
const PD_ACTIONS = new Set(['trigger', 'acknowledge', 'resolve']);
export const SIM_PAGERDUTY_SUMMARY_MAX_CHARS = 1024;
export const SIM_PAGERDUTY_DEDUP_KEY_MAX_CHARS = 255;
export const SIM_OPSGENIE_MESSAGE_MAX_CHARS = 130;
export const SIM_OPSGENIE_ALIAS_MAX_CHARS = 512;
export const SIM_OPSGENIE_NOTE_MAX_CHARS = 25_000;
const OPSGENIE_KEY_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A Map that forgets its oldest entry past `max`. */
function boundedMap<V>(max: number) {
  const map = new Map<string, V>();
  return {
    get: (key: string) => map.get(key),
    set(key: string, value: V) {
      map.delete(key);
      map.set(key, value);
      while (map.size > max) map.delete(map.keys().next().value!);
    },
    values: () => [...map.values()],
  };
}

const chars = (text: string) => Array.from(text).length;

export function createOnCallTools(limits: Partial<OnCallToolsLimits> = {}) {
  const { maxAlerts = 1000, maxNotesPerAlert = 100 } = limits;
  const pagerDutyKeys = new Set<string>();
  const opsgenieKeys = new Set<string>();
  const pdAlerts = boundedMap<PagerDutyAlertState>(maxAlerts);
  const ogAlerts = boundedMap<OpsgenieAlertState>(maxAlerts);
  let requestSeq = 0;

  function pdInvalid(...errors: string[]): ToolAnswer {
    return { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors } };
  }

  function ogAnswer(status: number, message: string, errors?: Record<string, string>): ToolAnswer {
    requestSeq += 1;
    return {
      status,
      body: { ...(status >= 400 ? { message } : { result: message }), ...(errors ? { errors } : {}), took: 0.2, requestId: `sim-${requestSeq}` },
    };
  }

  return {
    /** Routing keys PagerDuty knows (integrations that exist); any other is refused as invalid. */
    addPagerDutyKey: (key: string) => pagerDutyKeys.add(key),
    /** API keys Opsgenie knows; a key of another shape is refused with 422, an unknown one with 401. */
    addOpsgenieKey: (key: string) => opsgenieKeys.add(key),
    pagerDutyAlerts: () => pdAlerts.values(),
    opsgenieAlerts: () => ogAlerts.values(),

    /** POST /v2/enqueue. */
    pagerDutyEvent(body: unknown): ToolAnswer {
      if (typeof body !== 'object' || body === null) return pdInvalid('Event object is not a JSON object');
      const event = body as Record<string, unknown>;
      if (typeof event.routing_key !== 'string' || !pagerDutyKeys.has(event.routing_key)) return pdInvalid('Invalid routing key');
      const action = event.event_action;
      if (typeof action !== 'string' || !PD_ACTIONS.has(action)) return pdInvalid("'event_action' is missing or blank");
      const dedupKey = typeof event.dedup_key === 'string' ? event.dedup_key : `sim-${++requestSeq}`;
      if (chars(dedupKey) > SIM_PAGERDUTY_DEDUP_KEY_MAX_CHARS) return pdInvalid(`'dedup_key' is longer than ${SIM_PAGERDUTY_DEDUP_KEY_MAX_CHARS} characters`);
      const current = pdAlerts.get(dedupKey);
      if (action === 'trigger') {
        const payload = (event.payload ?? {}) as Record<string, unknown>;
        const errors: string[] = [];
        if (typeof payload.summary !== 'string' || payload.summary === '') errors.push("'payload.summary' is missing or blank");
        else if (chars(payload.summary) > SIM_PAGERDUTY_SUMMARY_MAX_CHARS)
          errors.push(`'payload.summary' is longer than ${SIM_PAGERDUTY_SUMMARY_MAX_CHARS} characters`);
        if (typeof payload.source !== 'string' || payload.source === '') errors.push("'payload.source' is missing or blank");
        if (typeof payload.severity !== 'string' || !PD_SEVERITIES.has(payload.severity))
          errors.push("'payload.severity' must be one of critical, error, warning, info");
        if (errors.length > 0) return pdInvalid(...errors);
        // A trigger on an open alert is deduplicated into it; after a resolve it opens a new one.
        const reopened = !current || current.status === 'resolved';
        pdAlerts.set(dedupKey, {
          dedupKey,
          status: 'triggered',
          triggers: (current?.triggers ?? 0) + 1,
          resolves: current?.resolves ?? 0,
          resolveEvents: current?.resolveEvents ?? 0,
          openedTimes: (current?.openedTimes ?? 0) + (reopened ? 1 : 0),
          summary: reopened ? (payload.summary as string) : current.summary,
        });
      } else if (action === 'resolve' && current) {
        // A resolve of a resolved alert changes nothing: PagerDuty takes it and drops it.
        const resolving = current.status === 'triggered';
        pdAlerts.set(dedupKey, { ...current, status: 'resolved', resolves: current.resolves + (resolving ? 1 : 0), resolveEvents: current.resolveEvents + 1 });
      }
      return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: dedupKey } };
    },

    /** The Alert API: `POST /v2/alerts`, `POST /v2/alerts/:alias/notes`, `POST /v2/alerts/:alias/close` (identifierType=alias). */
    opsgenieCall(authorization: string, call: { kind: 'create' } | { kind: 'note' | 'close'; alias: string }, body: unknown): ToolAnswer {
      const key = /^GenieKey (.+)$/.exec(authorization)?.[1] ?? '';
      if (!OPSGENIE_KEY_SHAPE.test(key)) return ogAnswer(422, 'Key format is not valid!');
      if (!opsgenieKeys.has(key)) return ogAnswer(401, 'Could not authenticate');
      const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      if (call.kind === 'create') {
        const message = fields.message;
        const alias = typeof fields.alias === 'string' ? fields.alias : typeof message === 'string' ? message : '';
        if (typeof message !== 'string' || message.trim() === '')
          return ogAnswer(422, 'Request body is not processable. Please check the errors.', { message: 'Message can not be empty.' });
        if (chars(message) > SIM_OPSGENIE_MESSAGE_MAX_CHARS)
          return ogAnswer(422, 'Request body is not processable. Please check the errors.', {
            message: `Message can not be longer than ${SIM_OPSGENIE_MESSAGE_MAX_CHARS} characters.`,
          });
        if (chars(alias) > SIM_OPSGENIE_ALIAS_MAX_CHARS)
          return ogAnswer(422, 'Request body is not processable. Please check the errors.', {
            alias: `Alias can not be longer than ${SIM_OPSGENIE_ALIAS_MAX_CHARS} characters.`,
          });
        const current = ogAlerts.get(alias);
        // An open alert with the alias takes the create as a repeat; a closed one makes way for a new alert.
        if (current && current.status === 'open') ogAlerts.set(alias, { ...current, creates: current.creates + 1 });
        else
          ogAlerts.set(alias, {
            alias,
            status: 'open',
            message,
            creates: (current?.creates ?? 0) + 1,
            closes: current?.closes ?? 0,
            notes: [],
            openedTimes: (current?.openedTimes ?? 0) + 1,
          });
        return ogAnswer(202, 'Request will be processed');
      }
      const note = typeof fields.note === 'string' ? fields.note : '';
      if (chars(note) > SIM_OPSGENIE_NOTE_MAX_CHARS)
        return ogAnswer(422, 'Request body is not processable. Please check the errors.', {
          note: `Note can not be longer than ${SIM_OPSGENIE_NOTE_MAX_CHARS} characters.`,
        });
      const current = ogAlerts.get(call.alias);
      // The API is asynchronous: a call on a missing alert is accepted and fails later, out of sight.
      if (current) {
        const notes = note ? [...current.notes, note].slice(-maxNotesPerAlert) : current.notes;
        if (call.kind === 'note') ogAlerts.set(call.alias, { ...current, notes });
        else if (current.status === 'open') ogAlerts.set(call.alias, { ...current, notes, status: 'closed', closes: current.closes + 1 });
      }
      return ogAnswer(202, 'Request will be processed');
    },
  };
}

export type OnCallTools = ReturnType<typeof createOnCallTools>;
