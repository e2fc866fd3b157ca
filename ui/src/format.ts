/** Formatting shared by the views; pure (no DOM), so tests/unit can check it. */

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(2) : seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.floor(seconds % 60)} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** One formatter for every call: building one per call costs more than the rest of a table row. */
const DATE_TIME = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Local date and time to the second, as the reader's locale writes it. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return DATE_TIME.format(date);
}

/** `running` → `running`, `timed_out` → `timed out`. */
export function statusLabel(status: string): string {
  return status.replaceAll('_', ' ');
}

export function formatCost(cost: number): string {
  return cost >= 1 ? cost.toFixed(2) : cost.toPrecision(2).replace(/\.?0+$/, '');
}

/** A JSON value, indented, for display; `undefined` as a dash. */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '—';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
