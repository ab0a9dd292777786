/** `statuswatch simulate` starts the SCIM directory beside the vendor, in a real child process. */
import { expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.ts';

it('serves the SCIM directory on --scim-port and logs its URL and token', async () => {
  const { child, done } = spawnCli(['simulate', '--sim-port', '0', '--scim-port', '0', '--host', '127.0.0.1', '--step-seconds', '0']);
  let output = '';
  const logged = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.includes('simulated SCIM directory is serving'));
      if (line) resolve(JSON.parse(line) as { url: string; token: string });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`simulate exited early (${code}): ${output}`)));
  });
  try {
    expect(logged.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/scim\/v2$/);
    const users = await fetch(`${logged.url}/Users`, { headers: { authorization: `Bearer ${logged.token}` } });
    expect(users.status).toBe(200);
    expect(await users.json()).toMatchObject({ totalResults: 0, Resources: [] });
  } finally {
    child.kill('SIGTERM');
  }
  expect((await done).code).toBe(0);
}, 60_000);
