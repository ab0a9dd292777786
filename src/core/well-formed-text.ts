/**
 * Text that UTF-8 can carry. A JSON string may hold a lone surrogate (`"\ud800"`, or a pair cut in
 * two by a length cap), which UTF-8 cannot: each store and encoder then writes it its own way
 * (better-sqlite3 as three bytes that read back as three U+FFFD, TextEncoder as one, an event's
 * JSON as the escape), and one title would read differently on two faces or runtimes. Vendor text
 * is made well formed where it enters: a lone surrogate becomes one U+FFFD, everywhere.
 */
export function wellFormed(text: string): string {
  // String.prototype.toWellFormed (ES2024): in Node 20 and workerd, not yet in the ES2023 lib's types.
  return (text as string & { toWellFormed(): string }).toWellFormed();
}
