/*
 * Wall-clock time in an IANA time zone, as "fake UTC" milliseconds (the wall clock's fields read as if they were UTC),
 * through the runtime's own time-zone database (Intl). Cron fields are matched against wall-clock times; these two
 * functions take an instant to its wall clock and back.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The wall clock at `instant` in `timeZone`, as fake-UTC milliseconds (to the second). */
export function wallClockOf(instant: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatOf(timeZone).formatToParts(new Date(instant))) if (part.type !== 'literal') fields[part.type] = Number(part.value);
  return Date.UTC(fields.year!, fields.month! - 1, fields.day!, fields.hour!, fields.minute!, fields.second!);
}

const DAY_MS = 86_400_000;

/**
 * The instants whose wall clock is `wall`, earliest first: none in a gap the clocks jumped over (spring forward), two
 * in an hour they repeat (fall back), one otherwise. The offsets a day before and after cover any single change.
 */
export function instantsOf(wall: number, timeZone: string): number[] {
  const offsets = new Set([wall - DAY_MS, wall + DAY_MS].map((probe) => wallClockOf(probe, timeZone) - probe));
  const instants = [...offsets].map((offset) => wall - offset).filter((instant) => wallClockOf(instant, timeZone) === wall);
  return [...new Set(instants)].sort((a, b) => a - b);
}
