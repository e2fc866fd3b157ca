/*
 * Plain-text building blocks of the commands' output: aligned tables, durations, short JSON. Pure functions, so the
 * output is tested without a server.
 */

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** `850ms`, `12.3s`, `4m05s`, `2h03m`: short and sortable by eye. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** Milliseconds from one ISO timestamp to another (or to `now`). */
export function between(from: string, to: string | null | undefined, now: number = Date.now()): number {
  return (to ? Date.parse(to) : now) - Date.parse(from);
}

/** A value as one line of JSON, cut to `max` characters. */
export function shortJson(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A value as indented JSON, for a human reading one value. */
export function prettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `key  value` lines, keys aligned. */
export function fields(entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${`${key}:`.padEnd(width + 1)}  ${value}`).join('\n') + '\n';
}
