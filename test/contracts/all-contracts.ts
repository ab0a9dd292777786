/** Every port's contract suite, registered against one store implementation. */
import { leaseContract } from './leases.contract.ts';
import { monitorEventsContract } from './monitor-events.contract.ts';
import type { StoreTarget } from './store-target.ts';

export function storeContracts(target: StoreTarget): void {
  leaseContract(target);
  monitorEventsContract(target);
}
