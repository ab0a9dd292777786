/**
 * Setup of the workers project, run before each test file. The files run one after another in one
 * Miniflare (vitest.config.ts: `isolate: false`), so without this they would share one module
 * graph: the Worker's app per env (its response cache, read budgets and generation memos) and the
 * harness's D1 slots and catchers would pass from one file to the next. Every module is evaluated
 * afresh for each file instead, as a Miniflare of its own would; what stays shared is what lives
 * outside the modules (the D1 databases, which the harness and the tests empty before use, and the
 * Node-side simulators, which tests reset).
 */
import { vi } from 'vitest';

vi.resetModules();
