/** Every port's contract suite, registered against one store implementation. */
import { accessContract } from './access.contract.ts';
import { appMessagesContract } from './app-messages.contract.ts';
import { archiveReadsContract } from './archive-reads.contract.ts';
import { archiveWritesContract } from './archive-writes.contract.ts';
import { installationsContract } from './installations.contract.ts';
import { leaseContract } from './leases.contract.ts';
import { mcpAccessContract } from './mcp-access.contract.ts';
import { monitorEventsContract } from './monitor-events.contract.ts';
import { oneTimeKeysContract } from './one-time-keys.contract.ts';
import { outboxContract } from './outbox.contract.ts';
import { retentionContract } from './retention.contract.ts';
import { scimGroupsContract } from './scim-groups.contract.ts';
import { sourcesContract } from './sources.contract.ts';
import { subscriptionsContract } from './subscriptions.contract.ts';
import type { StoreTarget } from './store-target.ts';

export function storeContracts(target: StoreTarget): void {
  leaseContract(target);
  archiveWritesContract(target);
  archiveReadsContract(target);
  retentionContract(target);
  subscriptionsContract(target);
  outboxContract(target);
  accessContract(target);
  monitorEventsContract(target);
  installationsContract(target);
  oneTimeKeysContract(target);
  mcpAccessContract(target);
  appMessagesContract(target);
  scimGroupsContract(target);
  sourcesContract(target);
}
