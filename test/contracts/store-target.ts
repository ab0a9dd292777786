/**
 * A store implementation under contract: each port's suite (test/contracts/*.contract.ts) is one
 * function of a target, registered once per implementation, as hono's router/common.case.test.ts
 * does for its routers. The same files run on Node against better-sqlite3
 * (test/adapters/sqlite-contracts.test.ts) and inside workerd against D1
 * (test/workers/d1-contracts.test.ts), so they use nothing but the port and Web-standard APIs.
 */
import type { SqliteStoreOptions } from '../../src/adapters/sqlite-store.ts';
import type { Store } from '../../src/core/ports.ts';
import type { GroupDirectoryStore } from '../../src/core/ports/scim-directory.ts';

export type OpenedStore = {
  store: Store;
  /** Group subscriptions' store on the same database. */
  groups: GroupDirectoryStore;
  /**
   * A second store on the same database, as another process (Node) or another isolate (Workers)
   * would open it: for what must hold across them, or under settings of its own.
   */
  openAnother(settings?: SqliteStoreOptions): Store;
  close(): Promise<void>;
};

export type StoreTarget = {
  name: string;
  /** An empty, migrated archive: a new file on Node, emptied tables on D1; `options` for every store opened on it. */
  open(options?: SqliteStoreOptions): Promise<OpenedStore>;
};
