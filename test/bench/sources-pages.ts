/**
 * The sources benchmark's pages, in a process of their own so the benchmark's memory figures are
 * statuswatch's alone: starts N simulated pages in the Statuspage format on loopback, prints their
 * addresses as one JSON line, and serves them until its stdin closes.
 */
import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';

const count = Number(process.argv[2]);
const pages: RunningSimulatedStatuspage[] = [];
for (let i = 0; i < count; i++) pages.push(await startSimulatedStatuspage({ name: `Vendor ${i}` }));
process.stdout.write(`${JSON.stringify(pages.map((p) => p.url))}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await Promise.all(pages.map((p) => p.close()));
  process.exit(0);
});
