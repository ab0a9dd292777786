/**
 * Setup of the node and workers projects, run before each test file. Their files share processes
 * (vitest.config.ts: `isolate: false`): the workers project runs every file in one Miniflare, the
 * node project runs many files one after another in each of its forks. Without this the files
 * would share one module graph too: the app's response cache, read budgets and generation memos,
 * the harness's D1 slots and catchers would pass from one file to the next. Every module of ours
 * is evaluated afresh for each file instead, as in a process of its own. What stays shared lives
 * outside those modules: the D1 databases (the harness and the tests empty them before use), the
 * Node-side simulators (tests reset them), and in the node project the packages of node_modules,
 * which Node itself loads, once per fork.
 */
import { vi } from 'vitest';

vi.resetModules();
