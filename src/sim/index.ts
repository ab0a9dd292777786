/** The simulated vendor's public surface. */
export { createSimulatedVendor, type SimulatedVendor, type SimulatedVendorOptions } from './app.ts';
export { startSimulatedVendor, type RunningSimulatedVendor, type StartSimulatedVendorOptions } from './server.ts';
export { demoScenario } from './demo-scenario.ts';
export { createScenarioRunner, type Scenario, type ScenarioStep, type StepContext } from './scenario.ts';
export type { SimIncident, SimNote } from './world.ts';
export type { Fault, FaultKind, FaultSpec, FaultTarget } from './faults.ts';
export type { RequestLogEntry } from './request-log.ts';
export type { SimSnapshot } from './control-routes.ts';
export type { FeedStyle } from './wire.ts';
export { formatVendorTime } from './vendor-time-format.ts';
export { encodePhpJson } from './php-json.ts';
export * as worldEdits from './world-edits.ts';
export { startSimulatedScim, createSimulatedScim, type RunningSimulatedScim } from './scim/index.ts';
