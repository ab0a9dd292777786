/** Every port's contract suite, registered against one store implementation. */
import { accessContract } from './access.contract.ts';
import { leaseContract } from './leases.contract.ts';
import { outboxContract } from './outbox.contract.ts';
import { subscriptionsContract } from './subscriptions.contract.ts';
import type { StoreTarget } from './store-target.ts';

export function storeContracts(target: StoreTarget): void {
  leaseContract(target);
  subscriptionsContract(target);
  outboxContract(target);
  accessContract(target);
}
