/**
 * An on-call alert as Opsgenie Alert API requests: create the alert under its alias, add a note for
 * every later change, close it when the incident is over. Limits (Opsgenie's alert fields and
 * Alert API docs): message 130 characters, alias 512, description 15,000, note 25,000, source 100.
 */
import type { OnCallAlert, OnCallSeverity } from './oncall-alert.ts';
import type { OpsgenieRegion } from './subscription.ts';
import { truncate } from './notification-message.ts';
import { parseWellFormedJson } from './well-formed-text.ts';

/** Each region's API host, unless OPSGENIE_API_URL says otherwise. */
export const OPSGENIE_API_URL_DEFAULTS: Readonly<Record<OpsgenieRegion, string>> = {
  us: 'https://api.opsgenie.com',
  eu: 'https://api.eu.opsgenie.com',
};
export const OPSGENIE_MESSAGE_MAX_CHARS = 130;
export const OPSGENIE_ALIAS_MAX_CHARS = 512;
export const OPSGENIE_DESCRIPTION_MAX_CHARS = 15_000;
export const OPSGENIE_NOTE_MAX_CHARS = 25_000;
const OPSGENIE_SOURCE_MAX_CHARS = 100;
/** A detail's value; Opsgenie bounds the details as a whole (8,000 characters), so each is kept short. */
const DETAIL_VALUE_MAX_CHARS = 1000;

const PRIORITIES: Record<OnCallSeverity, 'P1' | 'P2' | 'P3' | 'P5'> = { critical: 'P1', error: 'P2', warning: 'P3', info: 'P5' };

/** One call of the Alert API: a POST of `body` to `path` under the API's host. */
export type OpsgenieRequest = { path: string; body: Record<string, unknown> };

/**
 * The calls for one alert, in order. A later change creates the alert too before its note: Opsgenie
 * drops a create whose alias is open already (it counts it), and a subscription made mid-incident,
 * or one whose filters let the first messages by, still gets its alert.
 */
export function opsgenieRequestsOf(alert: OnCallAlert): OpsgenieRequest[] {
  const alias = Array.from(alert.key).slice(0, OPSGENIE_ALIAS_MAX_CHARS).join('');
  const byAlias = `/v2/alerts/${encodeURIComponent(alias)}`;
  const text = truncate(alert.lines.join('\n'), OPSGENIE_NOTE_MAX_CHARS);
  const source = truncate(alert.source, OPSGENIE_SOURCE_MAX_CHARS);
  const change = { user: 'statuswatch', source, note: `${alert.summary}\n${text}` };
  if (alert.action === 'close') return [{ path: `${byAlias}/close?identifierType=alias`, body: change }];
  // A closed alert still takes notes: the change is kept on it without reopening it.
  if (alert.action === 'after') return [{ path: `${byAlias}/notes?identifierType=alias`, body: change }];
  const create: OpsgenieRequest = {
    path: '/v2/alerts',
    body: {
      message: truncate(alert.summary, OPSGENIE_MESSAGE_MAX_CHARS),
      alias,
      description: truncate(text, OPSGENIE_DESCRIPTION_MAX_CHARS),
      priority: PRIORITIES[alert.severity],
      source,
      tags: ['statuswatch'],
      details: Object.fromEntries(Object.entries(alert.details).map(([name, value]) => [name, truncate(value, DETAIL_VALUE_MAX_CHARS)])),
      user: 'statuswatch',
    },
  };
  if (alert.action === 'open') return [create];
  return [create, { path: `${byAlias}/notes?identifierType=alias`, body: change }];
}

/** Opsgenie's error answer (`{"message": ..., "took", "requestId"}`) as one line. */
export function opsgenieErrorText(excerpt: string): string {
  try {
    const body = parseWellFormedJson(excerpt) as { message?: unknown; errors?: unknown };
    if (typeof body.message === 'string' && body.message.trim() !== '') {
      const errors = body.errors && typeof body.errors === 'object' ? Object.values(body.errors).filter((e): e is string => typeof e === 'string') : [];
      return truncate([body.message, ...errors].join('; ').replace(/\s+/g, ' '), 300);
    }
  } catch {
    // not JSON: shown as it came
  }
  return truncate(excerpt.replace(/\s+/g, ' ').trim(), 300);
}
