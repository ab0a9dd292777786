/** The simulated vendor Web API's public surface. */
export { createSimulatedWebApi, type SimulatedWebApi, type SimulatedWebApiOptions } from './app.tsx';
export { startSimulatedWebApi, type RunningSimulatedWebApi, type StartSimulatedWebApiOptions } from './server.ts';
export { ACCESS_TOKEN_LIFETIME_SECONDS, type SimApp, type WebApiSettings } from './settings.ts';
export { MISUSE_KINDS, type MisuseCounters, type MisuseKind } from './token-misuse.ts';
export type { WebApiFaultSpec, WebApiFaultKind } from './faults.ts';
export type { CallLogEntry } from './call-log.ts';
export { seedDemoWorkspace, DEMO_CHANNEL_NAME, type DemoWorkspace } from './demo-workspace.ts';
