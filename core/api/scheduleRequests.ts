import type { OverlapPolicy } from '../domain/schedule.js';

/*
 * Schedule requests as a transport hands them over (already shaped; adapters/http validates the shapes): times are
 * ISO 8601 strings and durations text such as `15m`, which core/useCases/schedules/scheduleDefinition.ts reads.
 */

export interface ScheduleSpecRequest {
  /** One or more cron expressions (five fields, or six with seconds first); or `every`. */
  cron?: string | readonly string[] | undefined;
  /** An interval such as `30s`, `15m`, `1h`, counted from the Unix epoch. */
  every?: string | undefined;
  /** Shifts every fire of an `every` schedule (shorter than `every`). */
  offset?: string | undefined;
  /** IANA name; @default UTC */
  timezone?: string | undefined;
  startAt?: string | undefined;
  endAt?: string | undefined;
  jitterSeconds?: number | undefined;
}

export interface SchedulePolicyRequest {
  overlap?: OverlapPolicy | undefined;
  catchupWindowSeconds?: number | undefined;
  pauseOnFailure?: boolean | undefined;
}

export interface CreateScheduleRequest {
  scheduleId: string;
  workflowName: string;
  catalog?: string | undefined;
  input?: unknown;
  spec: ScheduleSpecRequest;
  policy?: SchedulePolicyRequest | undefined;
  paused?: boolean | undefined;
  note?: string | undefined;
}

/** PATCH: what is named replaces what was (a spec whole; a policy field by field); the rest stays. */
export interface UpdateScheduleRequest {
  workflowName?: string | undefined;
  catalog?: string | undefined;
  input?: unknown;
  spec?: ScheduleSpecRequest | undefined;
  policy?: SchedulePolicyRequest | undefined;
  paused?: boolean | undefined;
  note?: string | undefined;
}

export interface ListSchedulesRequest {
  workflowName?: string | undefined;
  limit: number;
  pageToken?: string | undefined;
}

export interface BackfillRequest {
  startAt: string;
  endAt: string;
  overlap?: OverlapPolicy | undefined;
}
