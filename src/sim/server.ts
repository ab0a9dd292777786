/** Runs the simulated vendor on a real Node HTTP server (loopback, ephemeral port by default). */
import { createSimulatedVendor, type SimulatedVendor, type SimulatedVendorOptions } from './app.ts';
import { serveSimulator, type ListenOptions } from './serve-simulator.ts';

export type StartSimulatedVendorOptions = SimulatedVendorOptions & ListenOptions;

export type RunningSimulatedVendor = {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  vendor: SimulatedVendor;
  close(): Promise<void>;
};

export async function startSimulatedVendor(options: StartSimulatedVendorOptions = {}): Promise<RunningSimulatedVendor> {
  const { port, host, ...vendorOptions } = options;
  const vendor = createSimulatedVendor(vendorOptions);
  return { ...(await serveSimulator(vendor, { port, host })), vendor };
}
