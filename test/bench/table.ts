/** Plain-text tables and number formats for the benchmark report. */

export type Row = readonly (string | number)[];

/** Columns padded to their widest cell; numbers and figures right-aligned, the first column left. */
export function table(header: Row, rows: readonly Row[]): string {
  const all = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(all[0]!), rule, ...all.slice(1).map(line)].join('\n');
}

export function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : '-';
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : '-';
}

/**
 * As many decimals as it takes to tell `value` from the `goal` it is held to, `least` at least:
 * a goal's line must not show a miss as the goal itself (0.5998 against 0.6 read "0.60x", and
 * 10.04 ms against 10 read "10.0 ms", both marked missed).
 */
function decimalsApart(value: number, goal: number, least: number): number {
  let decimals = least;
  while (decimals < 6 && value !== goal && value.toFixed(decimals) === goal.toFixed(decimals)) decimals++;
  return decimals;
}

/** ms() for a figure held to `goalMs`. */
export function msAgainst(value: number, goalMs: number): string {
  return Number.isFinite(value) ? value.toFixed(decimalsApart(value, goalMs, value < 10 ? 2 : 1)) : '-';
}

/** ratio() for a figure held to `goal`. */
export function ratioAgainst(value: number, goal: number): string {
  return Number.isFinite(value) ? `${value.toFixed(decimalsApart(value, goal, 2))}x` : '-';
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function heading(text: string): string {
  return `\n${text}\n${'='.repeat(text.length)}`;
}
