/**
 * An on-call alert as a PagerDuty Events API v2 event: `trigger` under the alert's dedup_key for a
 * new incident and every later change (they land on the same alert), `resolve` when it is over.
 * Limits: summary at most 1024 characters, dedup_key at most 255 (the Events API v2 reference).
 */
import type { OnCallAlert } from './oncall-alert.ts';
import { truncate } from './notification-message.ts';
import { parseWellFormedJson } from './well-formed-text.ts';

/** Where events go unless PAGERDUTY_EVENTS_URL says otherwise. */
export const PAGERDUTY_EVENTS_URL_DEFAULT = 'https://events.pagerduty.com/v2/enqueue';
export const PAGERDUTY_SUMMARY_MAX_CHARS = 1024;
export const PAGERDUTY_DEDUP_KEY_MAX_CHARS = 255;
/** `source` has no published limit; a host name is at most 253 characters. */
const SOURCE_MAX_CHARS = 255;

export type PagerDutyEvent = {
  routing_key: string;
  event_action: 'trigger' | 'resolve';
  dedup_key: string;
  client: string;
  client_url: string;
  payload?: {
    summary: string;
    source: string;
    severity: OnCallAlert['severity'];
    component?: string;
    custom_details: Record<string, string>;
  };
  links?: { href: string; text: string }[];
};

/**
 * The event for an alert, or null when PagerDuty has nothing to hear: a change after the end
 * (Events API v2 cannot add to a resolved alert, and a trigger would reopen it).
 */
export function pagerDutyEventOf(alert: OnCallAlert, routingKey: string, publicUrl: string): PagerDutyEvent | null {
  if (alert.action === 'after') return null;
  const common = {
    routing_key: routingKey,
    dedup_key: Array.from(alert.key).slice(0, PAGERDUTY_DEDUP_KEY_MAX_CHARS).join(''),
    client: 'statuswatch',
    client_url: publicUrl,
  };
  if (alert.action === 'close') return { ...common, event_action: 'resolve' };
  return {
    ...common,
    event_action: 'trigger',
    payload: {
      summary: truncate(alert.summary, PAGERDUTY_SUMMARY_MAX_CHARS),
      source: truncate(alert.source, SOURCE_MAX_CHARS),
      severity: alert.severity,
      ...(alert.details.services ? { component: truncate(alert.details.services, SOURCE_MAX_CHARS) } : {}),
      custom_details: alert.details,
    },
    links: alert.links,
  };
}

/**
 * PagerDuty's error answer as one line: `Event object is invalid: Invalid routing key`. Its body
 * is `{"status", "message", "errors": [...]}`; anything else is shown as it came, briefly.
 */
export function pagerDutyErrorText(excerpt: string): string {
  try {
    const body = parseWellFormedJson(excerpt) as { message?: unknown; errors?: unknown };
    const errors = Array.isArray(body.errors) ? body.errors.filter((e): e is string => typeof e === 'string') : [];
    const message = typeof body.message === 'string' ? body.message : '';
    const text = [message, errors.join('; ')].filter((part) => part !== '').join(': ');
    if (text !== '') return truncate(text.replace(/\s+/g, ' '), 300);
  } catch {
    // not JSON: shown as it came
  }
  return truncate(excerpt.replace(/\s+/g, ' ').trim(), 300);
}

/** A 400 whose errors name the routing key: the integration was deleted or the key mistyped; retrying cannot help. */
export function isRoutingKeyRefusal(status: number | null, excerpt: string): boolean {
  return status === 400 && /routing[ _]key/i.test(excerpt);
}
