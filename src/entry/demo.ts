/** `npm run demo`: the simulated vendor plus statuswatch polling it, on a fresh demo database. */
import { rmSync } from 'node:fs';
import type { Config } from '../config.ts';
import type { Logger } from '../core/ports.ts';
import { startSimulatedVendor } from '../sim/server.ts';
import { startService } from './node.ts';

export const DEMO_DATABASE = './data/demo.db';

export async function runDemo(config: Config, logger: Logger, stepSeconds: number): Promise<{ close(): Promise<void> }> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(DEMO_DATABASE + suffix, { force: true });
  const sim = await startSimulatedVendor({ port: 0, host: '127.0.0.1', autoAdvanceMs: Math.max(1, stepSeconds) * 1000 });
  const service = await startService(
    {
      ...config,
      DATABASE_PATH: DEMO_DATABASE,
      STATUS_URL: sim.url,
      // Every ten seconds, so each scenario step shows up within moments.
      POLL_SCHEDULE: '*/10 * * * * *',
      POLL_ON_START: true,
      ADMIN_TOKEN: config.ADMIN_TOKEN ?? 'demo-admin-token-not-secret',
    },
    logger,
  );
  const lines = [
    '',
    'statuswatch demo is running. Incidents appear, gain notes, change and resolve every few seconds.',
    '',
    `  Active incidents (vendor format)  ${service.url}/api/v2.0.0/current`,
    `  Archive, newest first             ${service.url}/api/incidents`,
    `  Full-text search                  ${service.url}/api/incidents?q=upload`,
    `  Event log                         ${service.url}/api/events`,
    `  Health                            ${service.url}/healthz`,
    `  Poll now                          curl -X POST -H 'Authorization: Bearer ${config.ADMIN_TOKEN ?? 'demo-admin-token-not-secret'}' ${service.url}/api/admin/poll`,
    `  Simulated vendor                  ${sim.url}/api/v2.0.0/current  (state: ${sim.url}/_sim/state)`,
    '',
    'Ctrl-C stops both.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
  return {
    async close() {
      await service.close();
      await sim.close();
    },
  };
}
