/** An instant on a page: UTC from the server, rewritten to the viewer's own zone by public/app.js. */
import { toIsoSeconds } from '../../core/vendor-time.ts';

/** "2026-10-01 12:39 UTC": what readers without scripts see, and what app.js keeps as the tooltip. */
export function utcText(ms: number): string {
  return `${toIsoSeconds(ms).slice(0, 16).replace('T', ' ')} UTC`;
}

export function Time(props: { ms: number }) {
  return <time datetime={toIsoSeconds(props.ms)}>{utcText(props.ms)}</time>;
}

/** "3 h 12 min", "2 days 4 h": how long an incident lasted, for people rather than machines. */
export function durationText(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} days` : `${days} days ${hours % 24} h`;
}
