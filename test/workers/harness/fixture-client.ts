/** Calls the fixture factory (test/helpers/fixture-factory.ts) from inside workerd: the Node-side parts a test starts, over loopback HTTP. */
import { inject } from 'vitest';
import { FIXTURE_FACTORY_URL } from '../../helpers/fixture-factory-context.ts';

export type StartedFixture = { id: string; url: string };

export async function callFactory<T>(method: string, path: string, body?: unknown): Promise<T> {
  const base = inject(FIXTURE_FACTORY_URL);
  if (!base) throw new Error('no fixture factory: the workers project needs test/helpers/fixture-factory-setup.ts in its globalSetup');
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`fixture factory: ${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/**
 * Tests read what a receiver or mail catcher got synchronously (`receiver.received`), as Node's
 * servers push into those arrays themselves. Here each one registers: pending writes are flushed
 * before the app handles a request, and what arrived is pulled in after, so the arrays are current
 * whenever a test looks after awaiting the app.
 */
export type Catcher = { flush(): Promise<void>; pull(): Promise<void> };

const catchers = new Set<Catcher>();

export function watchCatcher(catcher: Catcher): () => void {
  catchers.add(catcher);
  return () => catchers.delete(catcher);
}

export async function flushCatchers(): Promise<void> {
  await Promise.all([...catchers].map((c) => c.flush()));
}

export async function pullCatchers(): Promise<void> {
  await Promise.all([...catchers].map((c) => c.pull()));
}

/**
 * Appends to `into` what the part logged since the last pull. The count of items pulled is kept
 * apart from `into.length`, since tests empty their array (`smtp.received.length = 0`) as they go.
 */
export function logPuller<Raw, Item>(kind: 'receivers' | 'mail-apis', id: string, into: Item[], convert: (raw: Raw) => Item) {
  let pulled = 0;
  return async () => {
    const { items } = await callFactory<{ items: Raw[] }>('GET', `/${kind}/${id}/log?since=${pulled}`);
    pulled += items.length;
    into.push(...items.map(convert));
  };
}
