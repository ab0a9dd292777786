/**
 * A page's components as a poll keeps them (SourceStore.saveComponentStates), for the sources
 * contract and the tests of a page's faces alike. Core types only: the contracts run in workerd too.
 */
import type { ComponentState } from '../../src/core/statuspage/mapping.ts';

/** Named `Component <id>` and placed by the digits of its id unless `extra` says otherwise; our word and the page's alike. */
export function componentState(id: string, status: ComponentState['status'], extra: Partial<ComponentState> = {}): ComponentState {
  return {
    id,
    name: `Component ${id}`,
    status,
    vendorStatus: status,
    groupId: null,
    position: Number(id.replace(/\D/g, '')) || null,
    isGroup: false,
    ...extra,
  };
}
