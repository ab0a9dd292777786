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

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function heading(text: string): string {
  return `\n${text}\n${'='.repeat(text.length)}`;
}
