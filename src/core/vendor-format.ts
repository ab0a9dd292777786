/** Our incidents written back in the vendor's own shape, for the mirror endpoints and stored versions. */
import type { Incident } from './incident.ts';

export type VendorIncidentJson = {
  id: number | string;
  title: string;
  type: string;
  status: string;
  url: string;
  date_created: string;
  date_updated: string;
  notes: { body: string; date_created: string }[];
  services: string[];
};

/**
 * The 2026 key order and oldest-first notes, timestamps exactly as the vendor gave them. Numeric
 * ids go out as numbers, as every real v2 response since 2019 has them.
 */
export function toVendorIncident(incident: Incident): VendorIncidentJson {
  return {
    id: /^\d{1,15}$/.test(incident.id) ? Number(incident.id) : incident.id,
    title: incident.title,
    type: incident.type,
    status: incident.status,
    url: incident.url,
    date_created: incident.dateCreated.raw,
    date_updated: incident.dateUpdated.raw,
    notes: incident.notes.map((n) => ({ body: n.body, date_created: n.dateCreated.raw })),
    services: incident.services,
  };
}
