/** The store's port contracts against D1, inside workerd (vitest-pool-workers): the same suites as on Node. */
import { env } from 'cloudflare:workers';
import { d1Connection, type D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import { createSqliteGroupDirectoryStore } from '../../src/adapters/sqlite-scim-groups.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { storeContracts } from '../contracts/all-contracts.ts';
import { emptyD1 } from './d1-reset.ts';

const db = (env as unknown as { DB: D1DatabaseLike }).DB;

storeContracts({
  name: 'D1',
  async open(options) {
    await emptyD1(db);
    return {
      store: createSqliteStore(d1Connection(db), options),
      groups: createSqliteGroupDirectoryStore(d1Connection(db)),
      // Another isolate: its own connection and caches over the same database.
      openAnother: (settings) => createSqliteStore(d1Connection(db), { ...options, ...settings }),
      async close() {},
    };
  },
});
