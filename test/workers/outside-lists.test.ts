/**
 * The lists read from outside inside workerd, one malformed record each: the shared suite
 * (test/adapters/outside-list-cases.ts) over workerd's fetch, against the simulators the Node side runs.
 */
import { describeOutsideLists } from '../adapters/outside-list-cases.ts';
import { startAppWorld } from './harness/app-channel.ts';
import { startScim } from './harness/scim-helpers.ts';
import type {} from './provided-context.ts';

describeOutsideLists('outside lists on Workers', { startAppWorld: (names) => startAppWorld(names), startScim: () => startScim() });
