import { z } from 'zod';
import { HISTORY_EVENT_TYPES } from '../../domain/history.js';
import {
  AnyJsonSchema,
  CatalogNameSchema,
  KeyIdSchema,
  ScheduleIdSchema,
  RunIdSchema,
  RunStatusSchema,
  TimestampSchema,
  WorkflowIdSchema,
  WorkflowNameSchema,
} from './common.js';

/** The run a rerun repeats (POST /workflow/{id}/runs/{rid}/rerun): in the rerun's answer and the new run's status. */
export const RerunOfSchema = z
  .strictObject({ workflowId: WorkflowIdSchema, runId: RunIdSchema })
  .meta({ title: 'RerunOf', description: 'The run this one repeats (POST /workflow/{id}/runs/{rid}/rerun).' });

/** docs/api.md: status response, run-list item and history metadata share this shape. */
export const RunStatusViewSchema = z
  .strictObject({
    workflowId: WorkflowIdSchema,
    runId: RunIdSchema,
    workflowName: WorkflowNameSchema,
    catalog: CatalogNameSchema,
    status: RunStatusSchema,
    startedAt: TimestampSchema,
    closedAt: TimestampSchema.nullable().meta({ description: 'null while the run is open.' }),
    rerunOf: RerunOfSchema.optional().meta({
      description: 'Only on a run a rerun started (and the continue-as-new runs and resets of its chain): the run it repeats.',
    }),
    startedBy: KeyIdSchema.optional().meta({
      description: 'Only on a run an API key started (and the continue-as-new runs and resets of its chain): the key\'s id (docs/security.md).',
    }),
    scheduleId: ScheduleIdSchema.optional().meta({ description: 'Only on a run a schedule started (and the runs of its chain): the schedule\'s id (docs/schedules.md).' }),
  })
  .meta({ title: 'WorkflowStatus' });

export const RunListSchema = z
  .strictObject({
    runs: z.array(RunStatusViewSchema).meta({ description: 'Newest first.' }),
    nextPageToken: z.string().nullable().meta({ description: 'Pass as `pageToken` for the next page; null at the end.' }),
  })
  .meta({ title: 'RunList' });

export const HistoryEventSchema = z
  .strictObject({
    eventId: z.number().int().positive().meta({ description: 'Increasing within a run; the SSE `id:`.' }),
    type: z.string().meta({
      description: `Engine-neutral event type: ${HISTORY_EVENT_TYPES.join(', ')}; engines may add others.`,
      examples: [...HISTORY_EVENT_TYPES],
    }),
    time: TimestampSchema,
    stepName: z.string().optional(),
    attributes: z.record(z.string(), z.unknown()),
  })
  .meta({ title: 'HistoryEvent' });

export const HistoryPageSchema = z
  .strictObject({
    workflow: RunStatusViewSchema,
    events: z.array(HistoryEventSchema),
    nextPageToken: z.string().nullable(),
  })
  .meta({ title: 'HistoryPage' });

export const HistoryDoneSchema = z.strictObject({ status: RunStatusSchema }).meta({ title: 'HistoryDone' });

/** The `progress` event of the history stream (docs/progress.md); not part of the engine's history. */
export const HistoryProgressSchema = z
  .strictObject({
    stepEventId: z.number().int().positive().meta({ description: 'The `eventId` of the step\'s `step_scheduled` event.' }),
    stepName: z.string(),
    attempt: z.number().int().positive(),
    seq: z.number().int().positive().meta({ description: '1, 2, 3… per step call, across its attempts.' }),
    time: TimestampSchema.meta({ description: 'When the step reported it, by the clock of the process running the step.' }),
    fields: z.record(z.string(), z.unknown()).meta({ description: 'What the step passed to `progress(fields)`.' }),
  })
  .meta({ title: 'HistoryProgress' });

export const InputViewSchema = z
  .strictObject({ workflowId: WorkflowIdSchema, runId: RunIdSchema, input: AnyJsonSchema })
  .meta({ title: 'WorkflowInput' });
