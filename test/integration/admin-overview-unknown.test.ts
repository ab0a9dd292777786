/**
 * The admin overview when the store cannot read one of its parts (a second real SQLite connection
 * moves the outbox's table away): that part says "unknown" and why, the others show as usual.
 * Node only: the failure is made through the SQLite file itself.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageSection, signInAdmin } from '../helpers/admin-page-client.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

describe('admin overview with a part it cannot read', () => {
  let vendor: TestVendor;
  let service: TestApp;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    service = await startTestApp(vendor.url);
  });
  afterAll(async () => {
    await service.close();
    await vendor.close();
  });

  it('shows that part as unknown, never as zero, and the rest as usual', async () => {
    expect((await service.poll()).outcome).toBe('ok');
    const admin = await signInAdmin(service);
    const other = new Database(join(service.dir, 'archive.db'));
    try {
      other.exec('ALTER TABLE deliveries RENAME TO deliveries_moved');
      const page = await admin.get('/admin');
      expect(page.status).toBe(200);
      expect(pageSection(page.html, 'overview-outbox-title')).toMatch(/Unknown: this could not be read just now \(.*deliveries/);
      expect(pageSection(page.html, 'overview-outbox-title')).not.toContain('Pending 0');
      expect(pageSection(page.html, 'overview-feed-title')).toContain('The feed is being read');
    } finally {
      other.exec('ALTER TABLE deliveries_moved RENAME TO deliveries');
      other.close();
    }
    expect(pageSection((await admin.get('/admin')).html, 'overview-outbox-title')).toContain('Pending 0');
  });
});
