import { z } from 'zod';
import { OVERLAP_POLICIES } from '../../domain/schedule.js';
import { AnyJsonSchema, CatalogNameSchema, RunIdSchema, ScheduleIdSchema, TimestampSchema, WorkflowIdSchema, WorkflowNameSchema } from './common.js';

/* Schedules (docs/schedules.md): the requests and what they answer. The rules beyond shapes live in core/domain/schedule.ts. */

export const OverlapSchema = z.enum(OVERLAP_POLICIES).meta({
  description:
    'What a fire does while a run the schedule started is still open: `skip` it, `buffer_one` (start it when the run closes; one waits at most), `buffer_all` (every one waits), `cancel_other` (stop the run, then start), `terminate_other` (end the run, start now), `allow_all` (start anyway).',
});

const DurationSchema = z.string().regex(/^(\d+d)?(\d+h)?(\d+m)?(\d+s)?$/, 'must be a duration such as 30s, 15m, 1h30m or 1d').min(2).max(20);
const TimeSchema = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 time with a zone or offset.' });

const SpecFields = {
  cron: z
    .union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).min(1).max(20)])
    .optional()
    .meta({ description: 'One or more cron expressions: five fields (minute hour day-of-month month day-of-week), or six with seconds first; numbers, `*`, `,`, `-`, `/`, or @hourly, @daily, @weekly, @monthly, @yearly. Day of month and day of week must both match.' }),
  every: DurationSchema.optional().meta({ description: 'Instead of cron: an interval such as `30s`, `15m`, `1h`, counted from the Unix epoch (no drift).' }),
  offset: DurationSchema.optional().meta({ description: 'Shifts each fire of `every` (shorter than `every`).' }),
  timezone: z.string().min(1).max(100).optional().meta({ description: 'IANA time zone the cron fields are read in. @default UTC' }),
  startAt: TimeSchema.optional().meta({ description: 'No fire before this time.' }),
  endAt: TimeSchema.optional().meta({ description: 'No fire after this time.' }),
  jitterSeconds: z.number().min(0).max(86_400).optional().meta({ description: 'Each fire is delayed by a random amount below this.' }),
};

export const ScheduleSpecRequestSchema = z.strictObject(SpecFields).meta({ title: 'ScheduleSpecRequest', description: 'When the schedule fires: exactly one of `cron` and `every`.' });

export const SchedulePolicyRequestSchema = z
  .strictObject({
    overlap: OverlapSchema.optional(),
    catchupWindowSeconds: z.number().int().min(10).max(10 * 365 * 86_400).optional().meta({
      description: 'Fires missed (engine down) by more than this are dropped, not started late. @default one year',
    }),
    pauseOnFailure: z.boolean().optional().meta({ description: 'A run the schedule started that fails or times out pauses the schedule.' }),
  })
  .meta({ title: 'SchedulePolicyRequest' });

const NoteSchema = z.string().max(1000).meta({ description: 'Why the schedule is as it is (shown with its state).' });

export const CreateScheduleBodySchema = z
  .strictObject({
    scheduleId: ScheduleIdSchema,
    workflowName: WorkflowNameSchema,
    catalog: CatalogNameSchema.optional(),
    input: AnyJsonSchema.optional().meta({ description: "Every run's input, checked against the workflow's input schema now." }),
    spec: ScheduleSpecRequestSchema,
    policy: SchedulePolicyRequestSchema.optional(),
    paused: z.boolean().optional().meta({ description: 'Create it paused.' }),
    note: NoteSchema.optional(),
  })
  .meta({ title: 'CreateScheduleRequest' });

export const UpdateScheduleBodySchema = z
  .strictObject({
    workflowName: WorkflowNameSchema.optional(),
    catalog: CatalogNameSchema.optional(),
    input: AnyJsonSchema.optional(),
    spec: ScheduleSpecRequestSchema.optional().meta({ description: 'Replaces the whole spec.' }),
    policy: SchedulePolicyRequestSchema.optional().meta({ description: 'Replaces the fields it names.' }),
    paused: z.boolean().optional(),
    note: NoteSchema.optional(),
  })
  .meta({ title: 'UpdateScheduleRequest', description: 'What it names replaces what was; the rest stays.' });

export const SchedulePauseBodySchema = z.strictObject({ note: NoteSchema.optional() }).meta({ title: 'SchedulePauseRequest' });

export const ScheduleTriggerBodySchema = z
  .strictObject({ overlap: OverlapSchema.optional().meta({ description: "@default the schedule's own" }) })
  .meta({ title: 'ScheduleTriggerRequest' });

export const ScheduleBackfillBodySchema = z
  .strictObject({
    startAt: TimeSchema,
    endAt: TimeSchema.meta({ description: 'Not in the future; the range holds at most 1000 fire times.' }),
    overlap: OverlapSchema.optional().meta({ description: "@default the schedule's own" }),
  })
  .meta({ title: 'ScheduleBackfillRequest', description: 'Fires once for every time of the spec from startAt to endAt, both included, in order.' });

const ScheduleActionSchema = z.strictObject({
  scheduledAt: TimestampSchema.meta({ description: 'The fire time (jitter included).' }),
  startedAt: TimestampSchema,
  workflowId: WorkflowIdSchema,
  runId: RunIdSchema,
});

export const ScheduleViewSchema = z
  .strictObject({
    scheduleId: ScheduleIdSchema,
    workflowName: WorkflowNameSchema,
    catalog: CatalogNameSchema,
    input: AnyJsonSchema,
    spec: z.strictObject({
      cron: z.array(z.string()).optional(),
      every: z.string().optional(),
      offset: z.string().optional(),
      timezone: z.string(),
      startAt: TimestampSchema.nullable(),
      endAt: TimestampSchema.nullable(),
      jitterSeconds: z.number(),
    }),
    policy: z.strictObject({ overlap: OverlapSchema, catchupWindowSeconds: z.number().int(), pauseOnFailure: z.boolean() }),
    paused: z.boolean(),
    note: z.string(),
    actionCount: z.number().int().meta({ description: 'Runs started so far.' }),
    missedCount: z.number().int().meta({ description: 'Fires dropped: past the catch-up window, or skipped by the overlap policy.' }),
    nextFireTimes: z.array(TimestampSchema).meta({ description: 'The next ten (jitter included); none while paused.' }),
    recentActions: z.array(ScheduleActionSchema).meta({ description: 'The last ten, newest last.' }),
    runningRuns: z.array(z.strictObject({ workflowId: WorkflowIdSchema, runId: RunIdSchema })).meta({ description: 'Runs it started that are still open.' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    createdBy: z.string().optional().meta({ description: 'The API key that created it (docs/security.md).' }),
    updatedBy: z.string().optional().meta({ description: 'The API key that last changed it.' }),
  })
  .meta({ title: 'Schedule' });

export const ScheduleListSchema = z
  .strictObject({
    schedules: z.array(ScheduleViewSchema).meta({ description: 'By schedule id.' }),
    nextPageToken: z.string().nullable().meta({ description: 'Pass as `pageToken` for the next page; null at the end.' }),
  })
  .meta({ title: 'ScheduleList' });

export const ScheduleFiresSchema = z
  .strictObject({ scheduleId: ScheduleIdSchema, fires: z.number().int().meta({ description: 'Fires handed to the engine; their runs show in `recentActions` as they start.' }) })
  .meta({ title: 'ScheduleFires' });
