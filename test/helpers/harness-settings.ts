/**
 * Settings every test service starts with unless its test sets its own: runtime-free, so the
 * Workers harness shares them.
 *
 * The read budget at its most. It charges each answer built for a client the wall time the build
 * took, and every request of a test comes from one client; on a loaded machine (load 20 on two
 * cores) the fifty cold reads of one test file took longer than the default's 3 s burst, and the
 * last ones were refused with 429. The tests of the budget itself set their own rate.
 */
export const HARNESS_SETTINGS = { READ_BUDGET_MS_PER_SECOND: '1000' } as const;
