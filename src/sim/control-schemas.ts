/** Zod schemas for the control API's request bodies, and the conversion of vendor-shaped incidents into the world. */
import { z } from 'zod';
import { FAULT_KINDS, FAULT_TARGETS, type FaultSpec } from './faults.ts';
import { incidentUrl } from './incident-url.ts';
import { parseVendorTime } from '../core/vendor-time.ts';
import type { SimIncident } from './world.ts';

const vendorTime = z.string().transform((text, ctx): number => {
  const ms = parseVendorTime(text)?.ms ?? null;
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `expected YYYY-MM-DDTHH:MM:SS±HH:MM, got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return ms;
});

// v1 sent ids as strings, so a test may paste either form.
const incidentId = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/, 'expected a numeric id').transform(Number)]);

/** An incident in the vendor's own shape, as a test would paste it from a feed. */
export const vendorIncidentSchema = z
  .object({
    id: incidentId,
    title: z.string(),
    type: z.string().min(1),
    status: z.string().min(1),
    url: z.string().optional(),
    services: z.array(z.string()),
    date_created: vendorTime,
    date_updated: vendorTime,
    notes: z.array(z.object({ body: z.string(), date_created: vendorTime })),
  })
  .transform(
    (raw): SimIncident => ({
      id: raw.id,
      title: raw.title,
      type: raw.type,
      status: raw.status,
      url: raw.url ?? incidentUrl(raw.id, raw.date_created),
      services: raw.services,
      dateCreatedMs: raw.date_created,
      dateUpdatedMs: raw.date_updated,
      notes: raw.notes.map((n) => ({ body: n.body, dateCreatedMs: n.date_created })),
    }),
  );

export const vendorIncidentListSchema = z.array(vendorIncidentSchema).superRefine((list, ctx) => {
  const seen = new Set<number>();
  list.forEach((incident, index) => {
    if (seen.has(incident.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate id ${incident.id}` });
    seen.add(incident.id);
  });
});

export const clockSchema = z.object({ nowMs: z.number().int().nonnegative() });

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export const faultSpecSchema = z
  .object({
    target: z.enum(FAULT_TARGETS),
    kind: z.enum(FAULT_KINDS),
    times: z.number().int().positive().optional(),
    status: z.number().int().min(200).max(599).optional(),
    delayMs: z.number().int().nonnegative().max(600_000).optional(),
    body: z.string().max(100_000_000).optional(),
  })
  .superRefine((spec, ctx) => {
    if ((spec.kind === 'body') !== (spec.body !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'a body fault needs a body, and only a body fault takes one' });
    }
    if (spec.kind === 'redirect' && spec.status !== undefined && !REDIRECT_STATUSES.has(spec.status)) {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'a redirect status must be 301, 302, 303, 307 or 308' });
    }
  }) satisfies z.ZodType<FaultSpec>;
