import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { ScheduleAction, ScheduleDefinition } from '../../../core/domain/schedule.js';

/** A schedule as the embedded engine keeps it: what it was told, and where its firing stands. */
export interface StoredSchedule {
  definition: ScheduleDefinition;
  createdAt: Date;
  updatedAt: Date;
  createdBy?: string | undefined;
  updatedBy?: string | undefined;
  actionCount: number;
  missedCount: number;
  /** Newest last, at most LISTED_ACTIONS. */
  recentActions: ScheduleAction[];
  /** Runs it started that had not closed when last looked at (the overlap policy's concern). */
  runningRuns: PinnedRunRef[];
  /** Fire times waiting for the running run to close (buffer_one, buffer_all, cancel_other). */
  buffered: Date[];
  /**
   * Every fire time up to this one has been acted on (started, skipped, buffered or dropped): after a restart, the fire
   * times past it are the missed ones, and a fire is never acted on twice.
   */
  handledUpTo: Date;
}

/** JSON with every Date as `{ "$date": ms }`, so a stored schedule reads back exactly. */
export function encodeSchedule(schedule: StoredSchedule): string {
  return JSON.stringify(schedule, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.getTime() } : value;
  });
}

export function decodeSchedule(text: string): StoredSchedule {
  return JSON.parse(text, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && '$date' in value && typeof (value as { $date: unknown }).$date === 'number'
      ? new Date((value as { $date: number }).$date)
      : value,
  ) as StoredSchedule;
}
