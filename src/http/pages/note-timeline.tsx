/** An incident's notes as a timeline, newest first; note bodies are vendor HTML and are sanitised here. */
import { raw } from 'hono/html';
import type { Note } from '../../core/incident.ts';
import { isHtmlNote } from '../../core/notification-message.ts';
import { Time } from './time.tsx';

export type Sanitize = (html: string) => string;

/**
 * HTML bodies (2026 on) go through the sanitiser; plain-text ones (2019-2023), where "<" is just
 * a character, are text for JSX to escape, their line breaks kept by CSS.
 */
export function NoteBody(props: { body: string; sanitize: Sanitize }) {
  return isHtmlNote(props.body) ? <div class="note-body">{raw(props.sanitize(props.body))}</div> : <div class="note-body note-plain">{props.body}</div>;
}

export function NoteTimeline(props: { notes: readonly Note[]; sanitize: Sanitize; label: string }) {
  if (props.notes.length === 0) return <p class="muted">No notes.</p>;
  const newestFirst = [...props.notes].reverse();
  return (
    <ol class="timeline" aria-label={props.label}>
      {newestFirst.map((note) => (
        <li>
          <p class="timeline-time">
            <Time ms={note.dateCreated.ms} />
          </p>
          <NoteBody body={note.body} sanitize={props.sanitize} />
        </li>
      ))}
    </ol>
  );
}
