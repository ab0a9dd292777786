/**
 * The `endless` fault's list pages: made-up users or groups at any startIndex, so a client that
 * trusts totalResults (or a lie in it) pages on for as long as it is willing to.
 */
import type { ScimVersion } from './errors.ts';
import type { PageRequest } from './paging.ts';
import { URNS } from './urns.ts';
import { listView } from './views.ts';

function madeUpUser(version: ScimVersion, n: number): Record<string, unknown> {
  const name = `endless${n}`;
  return {
    schemas: [URNS[version].user],
    id: `UEND${n}`,
    userName: name,
    displayName: `Endless ${n}`,
    active: true,
    emails: [{ value: `${name}@example.com`, type: 'work', primary: true }],
  };
}

function madeUpGroup(version: ScimVersion, n: number): Record<string, unknown> {
  return { schemas: [URNS[version].group], id: `SEND${n}`, displayName: `Endless ${n}`, members: [] };
}

/**
 * A page from `paging.startIndex`, full or as short as the sim's short pages make it (a test of the
 * page cap need not build and parse 200 pages of a thousand); totalResults is `claimed`, or always a
 * page (as asked) beyond the one asked for.
 */
export function endlessPage(
  version: ScimVersion,
  kind: 'users' | 'groups',
  paging: PageRequest,
  claimed: number | null,
  shortPageSize: number | null,
): Record<string, unknown> {
  const size = shortPageSize === null ? paging.count : Math.min(paging.count, shortPageSize);
  const resources = Array.from({ length: size }, (_, i) => {
    const n = paging.startIndex + i;
    return kind === 'users' ? madeUpUser(version, n) : madeUpGroup(version, n);
  });
  const totalResults = claimed ?? paging.startIndex - 1 + 2 * paging.count;
  return listView(version, resources, totalResults, paging.startIndex);
}
