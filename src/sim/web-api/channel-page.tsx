/**
 * A channel as a reader sees it: root messages oldest first, each with its latest text, an
 * "(edited)" mark and its earlier versions, and its thread. Everything comes from API callers, so
 * JSX escapes every value, and the page's CSP allows no script but its own (by a nonce per page),
 * which shows date tokens in the viewer's zone.
 */
import type { Reload } from '../catcher-page.ts';
import { raw } from 'hono/html';
import { blockLines, boldSpans, type BlockLine } from './block-text.ts';
import { type DateToken, formatDateToken, LOCAL_TIME_SCRIPT } from './date-token.ts';
import type { Channel, Message } from './channels.ts';
import type { Workspace } from './workspaces.ts';

/** Reloads by itself, so edits show up in place during a demo. */
export const CHANNEL_PAGE_REFRESH_SECONDS = 3;

/** A page's headers; `scriptNonce` lets that page's own script run, and nothing else. */
export function pageHeaders(scriptNonce: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${scriptNonce}'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
}

/** A fresh nonce for one page. */
export function newScriptNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1d1c1d}
ol{list-style:none;padding:0}.message{border-top:1px solid #ddd;padding:.6rem 0}.meta{color:#616061;font-size:13px}
.author{font-weight:700;color:#1d1c1d}.edited{color:#616061;font-size:12px}.header{font-weight:700;font-size:17px;margin:0}
.section,.plain{white-space:pre-wrap;margin:.2rem 0}.context{color:#616061;font-size:13px;margin:.2rem 0}
.thread{margin-left:1.5rem;border-left:3px solid #ddd;padding-left:.75rem}details{color:#616061;font-size:13px}`;

const timeOf = (ts: string): string => new Date(Math.floor(Number(ts.split('.')[0]) * 1000)).toISOString().replace('.000Z', 'Z');

/**
 * A date token: rendered here in UTC (the server knows no reader's zone), then by the page's
 * script in the viewer's. The fallback is what a client that cannot format it would show.
 */
function DateTime(props: { token: DateToken; nowMs: number }) {
  const { epochSeconds, format, fallback } = props.token;
  const date = new Date(epochSeconds * 1000);
  if (Number.isNaN(date.getTime())) return <span>{fallback}</span>;
  return (
    <time datetime={date.toISOString()} data-epoch={String(epochSeconds)} data-date-format={format} title={fallback}>
      {`${formatDateToken(epochSeconds, format, 'UTC', props.nowMs)} UTC`}
    </time>
  );
}

/** A block's line; sections and context are mrkdwn, so `*bold*` shows bold as in the vendor's clients. */
function Line(props: { line: BlockLine; nowMs: number }) {
  const { line } = props;
  if (line.kind === 'header' || line.kind === 'other') return <p class={line.kind === 'other' ? 'context' : line.kind}>{line.text}</p>;
  return (
    <p class={line.kind}>
      {line.parts.map((part) =>
        typeof part === 'string' ? (
          boldSpans(part).map((span) => (span.bold ? <strong>{span.text}</strong> : span.text))
        ) : (
          <DateTime token={part} nowMs={props.nowMs} />
        ),
      )}
    </p>
  );
}

function Content(props: { message: Message }) {
  const { message } = props;
  if (!message.blocks) return <p class="plain">{message.text}</p>;
  return (
    <div>
      {blockLines(message.blocks).map((line) => (
        <Line line={line} nowMs={Date.now()} />
      ))}
    </div>
  );
}

function MessageItem(props: { message: Message; workspace: Workspace; replies: readonly Message[] }) {
  const { message, workspace } = props;
  const author = message.botId ? `${workspace.botName} (app)` : message.userId;
  return (
    <li class="message" id={`m${message.ts}`}>
      <div class="meta">
        <span class="author">{author}</span> <time datetime={timeOf(message.ts)}>{timeOf(message.ts)}</time>{' '}
        {message.editedTs ? <span class="edited">(edited)</span> : ''}
      </div>
      <Content message={message} />
      {message.previous.length > 0 ? (
        <details>
          <summary>
            {message.editCount} edit{message.editCount === 1 ? '' : 's'}: earlier versions, oldest first
          </summary>
          <ol>
            {message.previous.map((p) => (
              <li>
                <p class="plain">
                  {p.blocks
                    ? blockLines(p.blocks)
                        .map((l) => l.text)
                        .join('\n')
                    : p.text}
                </p>
              </li>
            ))}
          </ol>
        </details>
      ) : (
        ''
      )}
      {props.replies.length > 0 ? (
        <ol class="thread" aria-label="thread">
          {props.replies.map((reply) => (
            <MessageItem message={reply} workspace={workspace} replies={[]} />
          ))}
        </ol>
      ) : (
        ''
      )}
    </li>
  );
}

export function ChannelPage(props: {
  channel: Channel;
  workspace: Workspace;
  roots: readonly Message[];
  repliesOf: (ts: string) => readonly Message[];
  scriptNonce: string;
  reload: Reload;
}) {
  const { channel, workspace } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        {props.reload.on ? <meta http-equiv="refresh" content={String(CHANNEL_PAGE_REFRESH_SECONDS)} /> : null}
        <title>{`#${channel.name} (${workspace.name}): simulated team chat`}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>
          <h1>#{channel.name}</h1>
          <p class="meta">
            {workspace.name} · {props.roots.length} message{props.roots.length === 1 ? '' : 's'} · the simulated vendor's channel, as a reader sees it ·{' '}
            <a href={props.reload.toggleHref}>{props.reload.on ? 'stop reloading' : `reload every ${CHANNEL_PAGE_REFRESH_SECONDS} s`}</a> ·{' '}
            <a href="/">all channels</a>
          </p>
          {props.roots.length === 0 ? (
            <p>No messages yet. The app's messages appear here when it posts with chat.postMessage, and change in place on chat.update.</p>
          ) : (
            <ol aria-label="messages">
              {props.roots.map((message) => (
                <MessageItem message={message} workspace={workspace} replies={message.threadTs === message.ts ? props.repliesOf(message.ts) : []} />
              ))}
            </ol>
          )}
          <script nonce={props.scriptNonce}>{raw(LOCAL_TIME_SCRIPT)}</script>
        </main>
      </body>
    </html>
  );
}

export function IndexPage(props: { workspaces: ReadonlyArray<{ workspace: Workspace; channels: readonly Channel[] }> }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>Simulated team chat: channels</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>
          <h1>Simulated team chat</h1>
          {props.workspaces.length === 0 ? <p>No workspaces yet: create one with POST /_sim/workspaces.</p> : ''}
          {props.workspaces.map(({ workspace, channels }) => (
            <section>
              <h2>
                {workspace.name}{' '}
                <span class="meta">
                  ({workspace.teamId}, app {workspace.status.replace('_', ' ')})
                </span>
              </h2>
              <ul>
                {channels.map((channel) => (
                  <li>
                    <a href={`/channels/${channel.id}`}>#{channel.name}</a> <span class="meta">{channel.messages.length} messages</span>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </main>
      </body>
    </html>
  );
}
