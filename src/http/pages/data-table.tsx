/**
 * The admin pages' tables: a keyboard-scrollable box (narrow screens) around a table with its
 * column heads. The box is a named figure, not a region: it takes the name of the section it sits
 * in, and two landmarks with one name are two stops a screen reader cannot tell apart.
 */
import type { Child } from 'hono/jsx';

/** `class` names a table whose columns a page's style sets (beside `data-table`). */
export function DataTable(props: { labelledBy: string; columns: readonly string[]; caption?: string; class?: string; children: Child }) {
  return (
    <figure class="table-scroll" aria-labelledby={props.labelledBy} tabindex={0}>
      <table class={props.class ? `data-table ${props.class}` : 'data-table'}>
        {props.caption ? <caption id={props.labelledBy}>{props.caption}</caption> : null}
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </figure>
  );
}
