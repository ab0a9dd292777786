/**
 * A budget of time spent on one client's behalf, as a token bucket whose tokens are milliseconds:
 * it refills at a steady rate up to a burst, and each piece of work is paid after it ran, at what it
 * cost. What a request costs is only known once it is answered, so a client may overdraw once; it
 * is then refused until the refill has paid the debt back. Pure data: the caller keeps the states.
 */

/** `refillMsPerSecond`: the share of the time one client may keep the server busy (100: a tenth). */
export type CostRule = { refillMsPerSecond: number; burstMs: number };

/**
 * Each client's share of the server's time for answers built for it (READ_BUDGET_MS_PER_SECOND): a
 * tenth. A person paging through filters or a script reading the archive page by page stays well
 * inside it (a cold page of 100 incidents takes a few milliseconds); a client looping on the
 * costliest read is held to a tenth of one core.
 */
export const DEFAULT_READ_BUDGET_MS_PER_SECOND = 100;
/** The burst a client starts with, and saves up to when idle: this many seconds of its refill. */
const BURST_SECONDS = 30;

export function readBudgetRule(msPerSecond: number): CostRule {
  return { refillMsPerSecond: msPerSecond, burstMs: msPerSecond * BURST_SECONDS };
}

/** What a client has left (negative: its debt), as of `atMs`. */
export type CostState = { balanceMs: number; atMs: number };

/** The state at `nowMs`: a new client starts with the whole burst; a clock that went back refills nothing. */
export function refilled(state: CostState | undefined, rule: CostRule, nowMs: number): CostState {
  if (!state) return { balanceMs: rule.burstMs, atMs: nowMs };
  const elapsedMs = Math.max(0, nowMs - state.atMs);
  return { balanceMs: Math.min(rule.burstMs, state.balanceMs + (elapsedMs * rule.refillMsPerSecond) / 1000), atMs: Math.max(nowMs, state.atMs) };
}

/** 0 when the client may start another piece of work; otherwise how long until its debt is paid. */
export function waitMs(state: CostState, rule: CostRule): number {
  return state.balanceMs > 0 ? 0 : Math.ceil(((-state.balanceMs + 1) * 1000) / rule.refillMsPerSecond);
}

/** The state after paying `costMs`. */
export function spent(state: CostState, costMs: number): CostState {
  return { balanceMs: state.balanceMs - Math.max(0, costMs), atMs: state.atMs };
}

export function checkCostRule(rule: CostRule): void {
  if (!(Number.isFinite(rule.refillMsPerSecond) && rule.refillMsPerSecond > 0)) {
    throw new Error(`cost budget: expected refillMsPerSecond to be a positive number, got ${rule.refillMsPerSecond}`);
  }
  if (!(Number.isFinite(rule.burstMs) && rule.burstMs > 0)) throw new Error(`cost budget: expected burstMs to be a positive number, got ${rule.burstMs}`);
}
