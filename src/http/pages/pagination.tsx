/** Links between pages of a cursor-paginated list: forward by cursor, and back to the first page. */

/** `params` are the current filters without the cursor; both links keep them. */
export function Pagination(props: { path: string; params: URLSearchParams; nextCursor: string; onFirstPage: boolean }) {
  if (!props.nextCursor && props.onFirstPage) return null;
  const first = props.params.toString();
  const next = new URLSearchParams(props.params);
  next.set('cursor', props.nextCursor);
  return (
    <nav class="pagination" aria-label="Pages">
      {!props.onFirstPage && <a href={first ? `${props.path}?${first}` : props.path}>Newest first</a>}
      {props.nextCursor && (
        <a href={`${props.path}?${next}`} rel="next">
          Older incidents
        </a>
      )}
    </nav>
  );
}
