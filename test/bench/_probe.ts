import { syntheticIncidents, toIncidentsFast, checkFastConversion, YEAR_MS, DAY_MS } from './synthetic.ts';
import { seedDirect } from './seed.ts';
import { openTempArchive, tempDir } from '../helpers/temp-archive.ts';
const now = Date.now();
let t = performance.now();
const lap = (l: string) => { console.log(l, (performance.now() - t).toFixed(0)); t = performance.now(); };
const sims = syntheticIncidents({ count: 100_000, endMs: now - DAY_MS, spanMs: 10 * YEAR_MS, active: 2, seed: 20 });
lap('gen');
checkFastConversion([...sims.slice(0, 150), ...sims.slice(-150)]); lap('check');
const inc = toIncidentsFast(sims); lap('fast');
for (const cache of [2000]) {
const a = openTempArchive(tempDir('x-'));
a.sqlite.pragma(`cache_size = -${cache}`);
seedDirect(a.sqlite, inc, now); lap('seed cache ' + cache);
a.remove();
}
