import type { OverlapPolicy, ScheduleDefinition, ScheduleDescription } from '../core/domain/schedule.js';

export interface ListSchedulesQuery {
  workflowName?: string | undefined;
  /** 1..1000 */
  limit: number;
  pageToken?: string | undefined;
}

export interface ScheduleList {
  /** By schedule id. */
  schedules: ScheduleDescription[];
  nextPageToken: string | null;
}

/**
 * The schedules of an engine (docs/schedules.md): kept and fired by the engine itself, so they fire with no API
 * process running (Temporal: Temporal Schedules; the embedded engine: its store and its own timers). The core has
 * already checked the workflow, its input and the rules of core/domain/schedule.ts; an engine refuses what only it can
 * judge (a cron expression it cannot read: ValidationError).
 *
 * `actor` is the id of the API key making the change, recorded on the schedule (createdBy, updatedBy).
 *
 * Errors: ScheduleNotFoundError for an unknown id, ScheduleAlreadyExistsError from create, ValidationError,
 * EngineError / EngineUnavailableError.
 */
export interface ScheduleEngine {
  create(definition: ScheduleDefinition, actor?: string): Promise<ScheduleDescription>;
  describe(scheduleId: string): Promise<ScheduleDescription>;
  list(query: ListSchedulesQuery): Promise<ScheduleList>;
  /**
   * Replaces what the schedule is told (its id stays); its actions and counts stay. With `base` (what the schedule was
   * when `definition` was made from it), only the parts `definition` changed are written, over what the schedule has
   * at the time of the write (mergedScheduleChange).
   */
  update(definition: ScheduleDefinition, actor?: string, base?: ScheduleDefinition): Promise<ScheduleDescription>;
  delete(scheduleId: string): Promise<void>;
  /** Pauses (`paused: true`) or unpauses it, with the note that says why. */
  setPaused(scheduleId: string, paused: boolean, note: string, actor?: string): Promise<ScheduleDescription>;
  /** Fires once now, under the schedule's overlap policy or `overlap`. */
  trigger(scheduleId: string, overlap: OverlapPolicy | undefined, actor?: string): Promise<void>;
  /** Fires for every time of the spec from startAt to endAt (both included), in order, under the overlap policy or `overlap`. */
  /** Resolves with the number of fires; a range of more than MAX_BACKFILL_FIRES is ValidationError and fires nothing. */
  backfill(scheduleId: string, range: { startAt: Date; endAt: Date }, overlap: OverlapPolicy | undefined, actor?: string): Promise<number>;
}
