import { Cron } from 'croner';
import { invalidSchedule, startSecond, withinBounds, type ScheduleIssue, type ScheduleSpec } from '../../core/domain/schedule.js';
import { instantsOf, wallClockOf } from './wallClock.js';

/*
 * When a schedule fires (docs/schedules.md, Time): the cron expressions are read and matched by croner, on the wall
 * clock of the schedule's time zone; the wall-clock times are then taken to instants as Temporal's scheduler takes
 * them, so both engines fire at the same times:
 * - a wall-clock time the clocks jump over (spring forward) does not fire;
 * - a wall-clock time the clocks repeat (fall back) fires once: at its first occurrence when the schedule's previous
 *   time lies in the hour before the change or in the repeated hour itself (an hourly schedule walks into it), else at
 *   its second occurrence (a daily 02:30 runs at 02:30 standard time);
 * - `every` counts whole intervals from the Unix epoch, plus the offset: no drift, whatever happened before.
 * Day of month and day of week must both match (Temporal's reading; classic cron matches either).
 */

/** What both engines read: numbers, `*`, lists, ranges and steps, or one of the @ aliases. */
const PORTABLE_FIELD = /^[0-9*,/-]+$/;
const ALIASES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** A cron expression's five fields, or six with seconds first, after the aliases. */
export function cronFields(expression: string): string[] {
  const trimmed = expression.trim();
  return (ALIASES[trimmed] ?? trimmed).split(/\s+/);
}

/** Why an expression cannot be a schedule's, or undefined. */
export function cronProblem(expression: string): string | undefined {
  const fields = cronFields(expression);
  if (fields.length !== 5 && fields.length !== 6) return `cron "${expression}" needs five fields (minute hour day month weekday), or six with seconds first`;
  if (!fields.every((field) => PORTABLE_FIELD.test(field))) {
    return `cron "${expression}" may use only numbers, "*", ",", "-" and "/" (or @hourly, @daily, @weekly, @monthly, @yearly)`;
  }
  try {
    wallCron(fields);
    return undefined;
  } catch (error) {
    return `cron "${expression}" is not valid: ${(error as Error).message}`;
  }
}

/** The spec's cron expressions, or ValidationError naming each that no engine reads. */
export function assertReadableSpec(spec: ScheduleSpec): void {
  if (spec.calendar.kind !== 'cron') return;
  const issues: ScheduleIssue[] = [];
  spec.calendar.expressions.forEach((expression, index) => {
    const problem = cronProblem(expression);
    if (problem !== undefined) issues.push({ path: ['spec', 'cron', index], message: problem });
  });
  if (issues.length > 0) throw invalidSchedule(issues);
}

function wallCron(fields: string[]): Cron {
  // The wall clock as fake UTC: croner never meets a daylight-saving change; instantsOf resolves them.
  return new Cron(fields.join(' '), { timezone: 'UTC', mode: fields.length === 6 ? '6-part' : '5-part', domAndDow: true });
}

const HOUR_MS = 3_600_000;

/** A schedule's fire times, computed on demand. */
export class FireTimes {
  private readonly crons: Cron[];

  constructor(private readonly spec: ScheduleSpec) {
    assertReadableSpec(spec);
    this.crons = spec.calendar.kind === 'cron' ? spec.calendar.expressions.map((expression) => wallCron(cronFields(expression))) : [];
  }

  /** The first fire time after `after` (strictly), within the spec's start and end; undefined when there is none. */
  next(after: Date): Date | undefined {
    const { startAt, endAt } = this.spec;
    // Temporal fires at startAt itself when it matches.
    const from = startAt && after.getTime() < startSecond(startAt) ? startSecond(startAt) - 1000 : after.getTime();
    const time = this.spec.calendar.kind === 'every' ? this.nextInterval(from) : this.nextCron(from);
    // Past what a date can hold there is no fire time (an interval near its bound, far from the epoch).
    if (time === undefined || !Number.isFinite(new Date(time).getTime()) || (endAt && time > endAt.getTime())) return undefined;
    return withinBounds(this.spec, new Date(time)) ? new Date(time) : undefined;
  }

  /** Up to `count` fire times after `after`. */
  upcoming(after: Date, count: number): Date[] {
    const times: Date[] = [];
    for (let time = this.next(after); time !== undefined && times.length < count; time = this.next(time)) times.push(time);
    return times;
  }

  /** Every fire time from `from` to `to`, both included (as Temporal's backfill), at most `limit` + 1 of them (so a caller can tell there are more). */
  between(from: Date, to: Date, limit: number): Date[] {
    const times: Date[] = [];
    for (let time = this.next(new Date(from.getTime() - 1)); time !== undefined && time.getTime() <= to.getTime(); time = this.next(time)) {
      times.push(time);
      if (times.length > limit) break;
    }
    return times;
  }

  private nextInterval(after: number): number {
    const { everyMs, offsetMs } = this.spec.calendar as { everyMs: number; offsetMs: number };
    // Whole seconds, as Temporal counts them.
    const seconds = Math.floor(after / 1000) * 1000;
    return (Math.floor((seconds - offsetMs) / everyMs) + 1) * everyMs + offsetMs;
  }

  private nextCron(after: number): number | undefined {
    let best: number | undefined;
    for (const cron of this.crons) {
      const time = this.nextOf(cron, after);
      if (time !== undefined && (best === undefined || time < best)) best = time;
    }
    return best;
  }

  private nextOf(cron: Cron, after: number): number | undefined {
    const { timezone } = this.spec;
    const afterWall = wallClockOf(after, timezone);
    let wall = afterWall;
    // A wall-clock time may be skipped (a gap) or already past in real time (a repeated hour): look further.
    for (let tries = 0; tries < 10_000; tries += 1) {
      const match = cron.nextRun(new Date(wall));
      if (match === null) return undefined;
      wall = match.getTime();
      const instants = instantsOf(wall, timezone).filter((instant) => instant > after);
      if (instants.length === 0) continue;
      if (instants.length === 1) return instants[0];
      // A repeated wall-clock time: the first occurrence when the schedule walks into the repeated hour.
      return afterWall >= hourStart(wall) - HOUR_MS ? instants[0] : instants[1];
    }
    return undefined;
  }
}

function hourStart(wall: number): number {
  return Math.floor(wall / HOUR_MS) * HOUR_MS;
}

/**
 * The delay of one fire (docs/schedules.md, Jitter): below `jitterMs` and below the time to the next fire, the same for
 * the same schedule and fire time on every process and after a restart (a hash, as Temporal's).
 */
export function jitterOf(scheduleId: string, nominal: Date, jitterMs: number, following: Date | undefined): number {
  const limit = Math.min(jitterMs, following === undefined ? jitterMs : following.getTime() - nominal.getTime());
  if (limit <= 0) return 0;
  let hash = 0x811c9dc5;
  for (const char of `${scheduleId}@${nominal.toISOString()}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return Math.floor((hash / 0x1_0000_0000) * limit);
}
