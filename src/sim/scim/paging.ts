/** `startIndex`, `count` and `sortOrder` of the list endpoints, and the page they select. */
import { ScimError } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 1000;

export type PageRequest = { startIndex: number; count: number; descending: boolean };

/** Out-of-range numbers are adjusted, as the spec says the vendor does with limits; a bad sortOrder is refused. */
export function parsePaging(params: URLSearchParams): PageRequest {
  const start = Number(params.get('startIndex') ?? '1');
  const count = Number(params.get('count') ?? String(DEFAULT_PAGE_SIZE));
  const sortOrder = params.get('sortOrder');
  if (sortOrder !== null && sortOrder !== 'ascending' && sortOrder !== 'descending') {
    throw new ScimError('invalid_sort_order', `sortOrder must be ascending or descending, not ${JSON.stringify(sortOrder)}`);
  }
  return {
    startIndex: Number.isFinite(start) && start >= 1 ? Math.floor(start) : 1,
    count: Number.isFinite(count) ? Math.min(MAX_PAGE_SIZE, Math.max(0, Math.floor(count))) : DEFAULT_PAGE_SIZE,
    descending: sortOrder === 'descending',
  };
}

/**
 * The page of `items` (already filtered, in ascending id order). A `shortPageSize` makes the page
 * shorter than asked while more remain, as the vendor may: clients must page by totalResults.
 */
export function selectPage<T>(items: readonly T[], request: PageRequest, shortPageSize: number | null): T[] {
  const ordered = request.descending ? [...items].reverse() : items;
  const size = shortPageSize === null ? request.count : Math.min(request.count, shortPageSize);
  return ordered.slice(request.startIndex - 1, request.startIndex - 1 + size);
}
