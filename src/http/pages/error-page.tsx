/** The body of a page that could not be shown: what went wrong, in words, and where to go instead. */
import type { Child } from 'hono/jsx';

export function ErrorMessage(props: { title: string; message: string; children?: Child }) {
  return (
    <section class="error-page" aria-labelledby="error-title">
      <h1 id="error-title">{props.title}</h1>
      <p class="warning">{props.message}</p>
      {props.children}
    </section>
  );
}
