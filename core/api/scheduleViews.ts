import type { z } from 'zod';
import type { ScheduleFiresSchema, ScheduleListSchema, ScheduleViewSchema } from './wire/schedules.js';

/* What the schedule use cases answer, inferred from their schemas in core/api/wire (docs/architecture.md). */

/** GET /schedules/{id} and what every change answers (docs/schedules.md). */
export type ScheduleView = z.output<typeof ScheduleViewSchema>;
/** A schedule's spec as it reads back: durations as text, times ISO 8601 UTC. Exactly one of `cron` and `every`. */
export type ScheduleSpecView = ScheduleView['spec'];
export type SchedulePolicyView = ScheduleView['policy'];
/** One run a schedule started; `recentActions` lists them newest last. */
export type ScheduleActionView = ScheduleView['recentActions'][number];

export type ScheduleListView = z.output<typeof ScheduleListSchema>;

/** What trigger and backfill answer: the fires are handed to the engine, whose runs appear as they start. */
export type ScheduleFiresView = z.output<typeof ScheduleFiresSchema>;
