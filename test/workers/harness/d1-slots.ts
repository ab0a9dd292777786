/**
 * Hands each test app its own D1 database among the harness's bindings, as the Node harness hands
 * each a fresh directory. Files never share these: each file has this module afresh
 * (test/helpers/file-scope.ts) and each database is emptied when handed out; within a file, two
 * apps open at once get two databases. `dir` names the archive: an app
 * started with the `dir` of one it closed (a restart) gets that database back, data and key.
 */
import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { D1DatabaseLike } from '../../../src/adapters/d1-connection.ts';
import { generateSecretKey } from '../../../src/core/secret-box.ts';
import { emptyD1 } from '../d1-reset.ts';
import { HARNESS_D1_BINDINGS } from './d1-bindings.ts';

type Bindings = Record<string, unknown> & { TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] };

export type D1Slot = { dir: string; db: D1DatabaseLike; secretKey: string; release(): void };

type SlotState = { binding: string; owner: string | null; open: boolean; migrated: boolean; secretKey: string; lastUsed: number };

const slots: SlotState[] = HARNESS_D1_BINDINGS.map((binding) => ({ binding, owner: null, open: false, migrated: false, secretKey: '', lastUsed: 0 }));
let generation = 0;

function databaseOf(slot: SlotState): D1DatabaseLike {
  const db = (env as unknown as Bindings)[slot.binding] as D1DatabaseLike | undefined;
  if (!db) throw new Error(`no D1 binding ${slot.binding}: vitest.config.ts gives the workers project HARNESS_D1_BINDINGS`);
  return db;
}

function handOut(slot: SlotState): D1Slot {
  slot.open = true;
  slot.lastUsed = ++generation;
  const release = () => {
    slot.open = false;
  };
  return { dir: slot.owner!, db: databaseOf(slot), secretKey: slot.secretKey, release };
}

/** The database of the archive `dir`, or a fresh empty one when `dir` is undefined. */
export async function openD1Slot(dir?: string): Promise<D1Slot> {
  if (dir !== undefined) {
    const slot = slots.find((s) => s.owner === dir);
    if (!slot) throw new Error(`archive ${dir}: its database went to another app since it closed (or it never was one of this file's)`);
    if (slot.open) throw new Error(`archive ${dir} is still open: close its app before starting another on it`);
    return handOut(slot);
  }
  const free = slots.filter((s) => !s.open).sort((a, b) => a.lastUsed - b.lastUsed)[0];
  if (!free) throw new Error(`all ${slots.length} harness D1 databases are open: close an app first, or add one to HARNESS_D1_BINDINGS`);
  const db = databaseOf(free);
  if (!free.migrated) {
    await applyD1Migrations(db as Parameters<typeof applyD1Migrations>[0], (env as unknown as Bindings).TEST_MIGRATIONS);
    free.migrated = true;
  }
  await emptyD1(db);
  free.owner = `d1:${free.binding}:${++generation}`;
  free.secretKey = generateSecretKey();
  return handOut(free);
}
