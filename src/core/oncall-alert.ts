/**
 * What an on-call tool (PagerDuty, Opsgenie) is told of one delivery: which alert it concerns, under
 * a key stable for the incident, and whether the alert opens, changes or closes. Each tool's payload
 * is built from this (pagerduty-message.ts, opsgenie-message.ts), so both agree on every rule.
 */
import { componentLabel, componentLines, componentSubject, componentWords, sourcePageUrl } from './component-message.ts';
import type { DeliveryMessage } from './delivery-message.ts';
import { SERVICE_STATE_WORDS } from './widget-state.ts';
import { isOngoing } from './incident.ts';
import { monitorLines, monitorSubject } from './monitor-message.ts';
import { changeLines, emailSubject, incidentPageUrl, noteText, oneLine, servicesList, statusText, truncate, vendorUrl } from './notification-message.ts';

/**
 * `open`: a new incident (or the monitor went blind); `update`: a later change; `close`: this
 * delivery saw it end; `after`: a change to an incident already over (a note edited after the
 * end), which must not reopen the alert nor resolve it a second time.
 */
export type OnCallAction = 'open' | 'update' | 'close' | 'after';

/** PagerDuty's four severities; Opsgenie's priorities are derived from them (opsgenie-message.ts). */
export type OnCallSeverity = 'critical' | 'error' | 'warning' | 'info';

export type OnCallLink = { href: string; text: string };

export type OnCallAlert = {
  /** One per incident and statuswatch instance: every change and the resolution land on the same alert. */
  key: string;
  action: OnCallAction;
  /** One line: `[Resolved] Files: Uploads fail`. */
  summary: string;
  severity: OnCallSeverity;
  /** Where the alert comes from: the vendor's status host, else this instance's. */
  source: string;
  /** Plain-text lines: what changed, the status, the services, the latest note. */
  lines: string[];
  /** Short named values for the tool's details view. */
  details: Record<string, string>;
  links: OnCallLink[];
};

export type OnCallContext = {
  publicUrl: string;
  /** A test send keys its alert apart from every real incident's and says it is a test. */
  test: boolean;
  /**
   * The incident's status in the archive now, when known. A delivery that went out late (retried
   * after a 429 while a later poll ended the incident) must not reopen an alert already closed.
   */
  statusNow?: string | null;
};

/** Longest latest note an alert carries; the rest is on our incident page. */
export const ONCALL_NOTE_MAX_CHARS = 1000;
/** A host name has at most 253 characters; a key keeps at most this many of it, to stay within PagerDuty's 255. */
const KEY_HOST_MAX_CHARS = 150;

/**
 * The incident's type as a severity: an outage pages hardest; a notice (maintenance, a heads-up)
 * only warns; a type the vendor adds later is information until we know what it means.
 */
export function severityOfType(type: string): OnCallSeverity {
  switch (type) {
    case 'outage':
      return 'critical';
    case 'incident':
      return 'error';
    case 'notice':
      return 'warning';
    default:
      return 'info';
  }
}

/** The alert key of an incident (or of the monitor's own news, or of a watched page's component) for this instance. */
export function onCallAlertKey(publicUrl: string, subject: { incidentId: string } | { componentSubjectId: string } | 'monitor' | 'test'): string {
  const host = hostOf(publicUrl).slice(0, KEY_HOST_MAX_CHARS);
  if (subject === 'monitor' || subject === 'test') return `statuswatch/${host}/${subject}`;
  if ('componentSubjectId' in subject) return `statuswatch/${host}/component/${subject.componentSubjectId}`;
  return `statuswatch/${host}/incident/${subject.incidentId}`;
}

export function onCallAlertOf(message: DeliveryMessage, context: OnCallContext): OnCallAlert {
  const alert =
    message.kind === 'monitor'
      ? monitorAlert(message.data, context)
      : message.kind === 'component'
        ? componentAlert(message, context)
        : incidentAlert(message.update, context);
  if (!context.test) return alert;
  // A test pages nobody hard, and lands on one alert of its own that its last message closes.
  return { ...alert, key: onCallAlertKey(context.publicUrl, 'test'), severity: 'info', summary: `[Test] ${alert.summary}` };
}

function incidentAlert(update: Extract<DeliveryMessage, { kind: 'incident' }>['update'], context: OnCallContext): OnCallAlert {
  const { incident, note } = update;
  const page = incidentPageUrl(context.publicUrl, update.incidentId);
  const vendorPage = vendorUrl(incident.url);
  const latestNote = note ? truncate(noteText(note.body), ONCALL_NOTE_MAX_CHARS) : '';
  const status = statusText(update);
  const services = servicesList(incident.services);
  const links: OnCallLink[] = [{ href: page, text: 'The incident on statuswatch' }];
  if (vendorPage) links.push({ href: vendorPage, text: "The vendor's incident page" });
  return {
    key: onCallAlertKey(context.publicUrl, { incidentId: update.incidentId }),
    action: lateAction(actionOf(update), context.statusNow),
    summary: emailSubject(update),
    severity: severityOfType(incident.type),
    source: vendorPage ? hostOf(vendorPage) : hostOf(context.publicUrl),
    lines: [...changeLines(update), `Status: ${status}`, `Services: ${services}`, ...(latestNote ? [`Latest note: ${latestNote}`] : []), page],
    details: {
      status,
      services,
      type: oneLine(incident.type),
      ...(latestNote ? { latest_note: latestNote } : {}),
      incident_page: page,
      ...(vendorPage ? { vendor_page: vendorPage } : {}),
    },
    links,
  };
}

/** An open or an update that the archive has since seen end is only told, as a change after the end. */
function lateAction(action: OnCallAction, statusNow: string | null | undefined): OnCallAction {
  const overNow = statusNow !== undefined && statusNow !== null && !isOngoing(statusNow);
  return overNow && (action === 'open' || action === 'update') ? 'after' : action;
}

function actionOf(update: Extract<DeliveryMessage, { kind: 'incident' }>['update']): OnCallAction {
  if (isOngoing(update.incident.status)) return update.created ? 'open' : 'update';
  // Ended in this delivery (or already over when first seen): the one close; any later change is only told.
  return update.created || update.status !== null ? 'close' : 'after';
}

function monitorAlert(data: Extract<DeliveryMessage, { kind: 'monitor' }>['data'], context: OnCallContext): OnCallAlert {
  const lines = monitorLines(data, (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString() : 'an unknown time'));
  return {
    key: onCallAlertKey(context.publicUrl, 'monitor'),
    // Blind, nothing is known of the vendor: that is worth a warning, not a claim of an outage.
    action: data.type === 'monitor.blind' ? 'open' : 'close',
    summary: monitorSubject(data),
    severity: 'warning',
    source: hostOf(context.publicUrl),
    lines,
    details: { status: data.type === 'monitor.blind' ? 'Unknown: the feed cannot be read' : 'The feed is read again', since: data.since ?? 'never read' },
    links: [{ href: context.publicUrl.replace(/\/+$/, ''), text: 'statuswatch' }],
  };
}

/**
 * A watched page's component in an outage is an alert of its own, keyed by the component: it opens
 * when the component enters an outage (critical for a major one) and closes when it leaves it.
 * On-call tools hear of nothing else a component does (fanout.ts plans no other change for them);
 * a change that neither enters nor leaves an outage is only told, never opening an alert.
 */
function componentAlert(message: Extract<DeliveryMessage, { kind: 'component' }>, context: OnCallContext): OnCallAlert {
  const { data } = message;
  const outage = SERVICE_STATE_WORDS.outage;
  const action: OnCallAction = data.to_state === outage ? (data.from_state === outage ? 'update' : 'open') : data.from_state === outage ? 'close' : 'after';
  const page = sourcePageUrl(context.publicUrl, data.source.id);
  return {
    key: onCallAlertKey(context.publicUrl, { componentSubjectId: message.subjectId }),
    action,
    summary: componentSubject(data),
    severity: data.to === 'major_outage' ? 'critical' : data.to_state === outage ? 'error' : 'info',
    source: hostOf(context.publicUrl),
    lines: [...componentLines(data), page],
    details: {
      status: `${componentWords(data.to)} (${oneLine(data.to_state)}), was ${componentWords(data.from)} (${oneLine(data.from_state)})`,
      services: componentLabel(data),
      page: oneLine(data.source.name),
      source_page: page,
    },
    links: [{ href: page, text: 'The page on statuswatch' }],
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || 'statuswatch';
  } catch {
    return 'statuswatch';
  }
}
