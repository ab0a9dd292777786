/** What the HTTP layer needs, built once by each entry and handed to createApp. */
import type { Poller } from '../app/poller.ts';
import type { CursorCodec } from '../core/cursor.ts';
import type { Clock, Logger, Store } from '../core/ports.ts';
import type { StaticAssets } from './routes/static-assets.ts';

export type AppDeps = {
  store: Store;
  poller: Poller;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  /** Admin endpoints answer 403 admin_disabled when unset. */
  adminToken?: string;
  /** PUBLIC_URL: the origin links in pages, feeds and messages use; unset, the request's own origin. */
  publicUrl?: string;
  /** The files of public/, served at their paths. */
  assets: StaticAssets;
  /** When this process started, epoch ms: /healthz allows a first poll this long to succeed. */
  startedAt: number;
};
