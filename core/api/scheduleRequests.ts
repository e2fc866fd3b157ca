import type { z } from 'zod';
import type {
  CreateScheduleBodySchema,
  ScheduleBackfillBodySchema,
  SchedulePolicyRequestSchema,
  ScheduleSpecRequestSchema,
  UpdateScheduleBodySchema,
} from './wire/schedules.js';

/*
 * Schedule requests as a transport hands them over, inferred from their schemas in core/api/wire
 * (docs/architecture.md): times are ISO 8601 strings and durations text such as `15m`, which
 * core/useCases/schedules/scheduleDefinition.ts reads.
 */

/** One or more cron expressions, or `every`; times ISO 8601; `timezone` an IANA name (@default UTC). */
export type ScheduleSpecRequest = z.output<typeof ScheduleSpecRequestSchema>;
export type SchedulePolicyRequest = z.output<typeof SchedulePolicyRequestSchema>;
export type CreateScheduleRequest = z.output<typeof CreateScheduleBodySchema>;
/** PATCH: what is named replaces what was (a spec whole; a policy field by field); the rest stays. */
export type UpdateScheduleRequest = z.output<typeof UpdateScheduleBodySchema>;
export type BackfillRequest = z.output<typeof ScheduleBackfillBodySchema>;

export interface ListSchedulesRequest {
  workflowName?: string | undefined;
  limit: number;
  pageToken?: string | undefined;
}
