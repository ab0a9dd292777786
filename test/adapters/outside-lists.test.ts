/** The lists read from outside on Node, one malformed record each: the shared suite (outside-list-cases.ts) against simulators in this process. */
import { startAppWorld } from '../helpers/app-channel.ts';
import { startScim } from '../sim/scim-helpers.ts';
import { describeOutsideLists } from './outside-list-cases.ts';

describeOutsideLists('outside lists on Node', { startAppWorld: (names) => startAppWorld(names), startScim: () => startScim() });
