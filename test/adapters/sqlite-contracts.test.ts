/** The store's port contracts against better-sqlite3: a fresh archive file per test. */
import { createSqliteGroupDirectoryStore } from '../../src/adapters/sqlite-scim-groups.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { openSqliteArchive, type SqliteArchive } from '../../src/entry/open-sqlite.ts';
import { storeContracts } from '../contracts/all-contracts.ts';
import { openTempArchive } from '../helpers/temp-archive.ts';

storeContracts({
  name: 'better-sqlite3',
  async open(options) {
    const archive = openTempArchive();
    const others: SqliteArchive[] = [];
    return {
      store: options ? createSqliteStore(archive.connection, options) : archive.store,
      groups: createSqliteGroupDirectoryStore(archive.connection),
      openAnother(settings) {
        const other = openSqliteArchive(archive.path);
        others.push(other);
        return createSqliteStore(other.connection, { ...options, ...settings });
      },
      async close() {
        for (const other of others) other.close();
        archive.remove();
      },
    };
  },
});
