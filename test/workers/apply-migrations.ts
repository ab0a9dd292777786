/** Setup of the workers project: drizzle/ applied to the test D1 database, as `wrangler d1 migrations apply` does. */
import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

const bindings = env as unknown as { DB: Parameters<typeof applyD1Migrations>[0]; TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] };
await applyD1Migrations(bindings.DB, bindings.TEST_MIGRATIONS);
