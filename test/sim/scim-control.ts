/** The SCIM sim's control API from a test, by URL only: Web-standard, so workerd's tests use it too. */

/** A control API call; fails the test when the sim refuses it. */
export async function control(sim: { url: string }, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${sim.url}/_sim${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status >= 300) throw new Error(`${method} /_sim${path} answered ${res.status}: ${JSON.stringify(parsed)}`);
  return parsed;
}
