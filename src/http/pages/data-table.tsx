/** The admin pages' tables: a keyboard-scrollable region (narrow screens) around a table with its column heads. */
import type { Child } from 'hono/jsx';

export function DataTable(props: { labelledBy: string; columns: readonly string[]; caption?: string; children: Child }) {
  return (
    <section class="table-scroll" aria-labelledby={props.labelledBy} tabindex={0}>
      <table class="data-table">
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
    </section>
  );
}
