/**
 * The poll runs, newest first, a page at a time: what `GET /api/admin/polls` and the admin page
 * `/admin/polls` show. A page reads on after a signed cursor, as every list does; a request
 * without one may still name `before` (an epoch ms start time), which the API documented first.
 */
import type { CursorCodec } from '../core/cursor.ts';
import type { ArchiveQueries, PollRun } from '../core/ports.ts';
import { isWhole, keyedList, type Page, pageAfter, readPosition } from './cursor-page.ts';
import type { ListRequest } from './subscription-lists.ts';

export type PollRunDeps = { store: Pick<ArchiveQueries, 'listPollRuns'>; cursors: CursorCodec };

/** `beforeStartedAt`: where a request without a cursor starts (runs that started before it); null for the newest. */
export type PollRunRequest = ListRequest & { beforeStartedAt: number | null };

/**
 * Poll runs that started before the cursor's (or else `beforeStartedAt`), the newest first; an
 * invalid_cursor ApiError for a cursor of another list.
 */
export async function pollRunPage({ store, cursors }: PollRunDeps, request: PollRunRequest): Promise<Page<PollRun>> {
  const list = keyedList<number>(request.list, 's', isWhole);
  const after = (await readPosition(cursors, list, request.cursor)) ?? request.beforeStartedAt;
  return pageAfter(
    cursors,
    list,
    after,
    request.limit,
    (before, limit) => store.listPollRuns(before, limit),
    (run) => run.startedAt,
  );
}
