/**
 * The Workers pool's stand-in for test/helpers/statuspage-pages.ts: each simulated page runs on the
 * Node side (fixture factory). Its address is given by name (localhost): a Worker refuses every IP
 * literal, and reaches loopback names only with WEBHOOK_ALLOW_PRIVATE.
 */
import { controlledStatuspage, type TestStatuspage } from '../../helpers/statuspage-control.ts';
import { callFactory, type StartedFixture } from './fixture-client.ts';

export type { TestStatuspage };

/** `demo`: one of the demo's pages by name, served with its own story (test/helpers/statuspage-pages.ts). */
export async function startTestStatuspage(options: { name?: string; demo?: string } = {}): Promise<TestStatuspage> {
  const { id, url } = await callFactory<StartedFixture>('POST', '/statuspages', options);
  let closing: Promise<void> | undefined;
  return controlledStatuspage(url.replace('//127.0.0.1:', '//localhost:'), () => (closing ??= callFactory('DELETE', `/statuspages/${id}`).then(() => {})));
}
