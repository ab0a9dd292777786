/** What `statuswatch simulate` starts, in one module the command loads only when it runs. */
export { startSimulatedVendor } from '../sim/server.ts';
export { startSimulatedScim } from '../sim/scim/server.ts';
export { startSimulatedIdp } from '../sim/idp/server.ts';
export { startSimulatedStatuspage } from '../sim/statuspage/app.ts';
export { startDemoStatuspages } from '../sim/statuspage/demo-pages.ts';
export { startSimulatedWebApi } from '../sim/web-api/server.ts';
export { seedDemoWorkspace } from '../sim/web-api/demo-workspace.ts';
