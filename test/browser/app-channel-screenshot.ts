/**
 * The README's picture of the simulated channel: opens the channel page of a running
 * `npm run demo` in Debian's Chromium and saves public/screenshots/app-channel.png.
 *
 *     npm run demo -- --step-seconds 6     # in one terminal; wait for a few scenario steps
 *     npx tsx test/browser/app-channel-screenshot.ts <the demo's "Team-chat channel" URL>
 */
import { fileURLToPath } from 'node:url';
import { launchBrowser } from './helpers.ts';

const PICTURE = fileURLToPath(new URL('../../public/screenshots/app-channel.png', import.meta.url));

const url = process.argv[2];
if (!url || !/^http:\/\/127\.0\.0\.1:\d+\/channels\/\w+$/.test(url)) {
  process.stderr.write('usage: npx tsx test/browser/app-channel-screenshot.ts http://127.0.0.1:<port>/channels/<id>\n');
  process.exit(2);
}
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  await page.goto(url);
  await page.screenshot({ path: PICTURE, fullPage: true });
  process.stdout.write(`${PICTURE}\n`);
} finally {
  await browser.close();
}
