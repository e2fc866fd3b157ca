import { z } from 'zod';
import { ScheduleIdSchema, WorkflowNameSchema } from './common.js';
import { PageTokenSchema, queryInteger, queryParameters } from './requests.js';

/*
 * Schedules (docs/schedules.md): the bodies and what they answer are declared once, in core/api/wire
 * (docs/architecture.md); here, the path and the query. The rules beyond shapes live in core/domain/schedule.ts.
 */
export * from '../../../core/api/wire/schedules.js';

export const ScheduleParamsSchema = z.object({ id: ScheduleIdSchema });

export const ListSchedulesQuerySchema = queryParameters({
  workflowName: WorkflowNameSchema.optional().meta({ description: 'Only schedules that start this workflow.' }),
  limit: queryInteger({ min: 1, max: 1000, fallback: 100 }).meta({ description: 'Page size, by schedule id.' }),
  pageToken: PageTokenSchema.optional(),
});
