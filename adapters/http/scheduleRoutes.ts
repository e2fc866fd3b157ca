import { backfillSchedule, createSchedule, deleteSchedule, getSchedule, listSchedules, pauseSchedule, triggerSchedule, updateSchedule } from './handlers/schedules.js';
import { failure, success } from './responseDocs.js';
import { defineRoute, type Route } from './route.js';
import {
  CreateScheduleBodySchema,
  ListSchedulesQuerySchema,
  ScheduleBackfillBodySchema,
  ScheduleFiresSchema,
  ScheduleListSchema,
  ScheduleParamsSchema,
  SchedulePauseBodySchema,
  ScheduleTriggerBodySchema,
  ScheduleViewSchema,
  UpdateScheduleBodySchema,
} from './schemas/schedules.js';

const SCHEDULE_NOT_FOUND = failure('ScheduleNotFoundError: no schedule of that id (or one of a workflow the key may not use).');
const WORKFLOW_CHECKS = {
  404: failure('WorkflowNotFoundError: no catalog has the workflow; or CatalogNotAvailableError: the catalog is unknown.'),
  424: failure('UnsupportedWorkflowError: the catalog does not have the workflow, another one does.'),
};

/** The schedule endpoints (docs/schedules.md): reading needs `read`, every change `control`. */
export function scheduleRoutes(): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/schedules',
      operationId: 'createSchedule',
      scope: 'control',
      summary: 'Create a schedule',
      description:
        'The engine starts the workflow at every fire time of the spec, as the workflow id `<scheduleId>-<fire time, ISO 8601 UTC>`; the runs carry `scheduleId`. The workflow and its input are checked now, as a start would check them (a worker need not run yet).',
      tags: ['schedules'],
      body: { schema: CreateScheduleBodySchema },
      responses: {
        201: success(ScheduleViewSchema, 'Created.'),
        ...WORKFLOW_CHECKS,
        409: failure('ScheduleAlreadyExistsError: a schedule of that id exists.'),
      },
      handle: ({ body }, context) => createSchedule(body, context),
    }),
    defineRoute({
      method: 'GET',
      path: '/schedules',
      operationId: 'listSchedules',
      summary: 'List schedules',
      description: 'By schedule id. On Temporal the list comes from its visibility store: a schedule just created may show a moment later.',
      tags: ['schedules'],
      query: ListSchedulesQuerySchema,
      responses: { 200: success(ScheduleListSchema, 'A page of schedules.') },
      handle: ({ query }, context) => listSchedules(query, context),
    }),
    defineRoute({
      method: 'GET',
      path: '/schedules/{id}',
      operationId: 'getSchedule',
      summary: 'A schedule: spec, policy, state, next fire times and recent actions',
      tags: ['schedules'],
      params: ScheduleParamsSchema,
      responses: { 200: success(ScheduleViewSchema, 'The schedule.'), 404: SCHEDULE_NOT_FOUND },
      handle: ({ params }, context) => getSchedule(params.id, context),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/schedules/{id}',
      operationId: 'updateSchedule',
      scope: 'control',
      summary: 'Change a schedule',
      description: 'What the body names replaces what was (a spec whole, a policy field by field); checked as a create is. Its actions and counts stay.',
      tags: ['schedules'],
      params: ScheduleParamsSchema,
      body: { schema: UpdateScheduleBodySchema },
      responses: { 200: success(ScheduleViewSchema, 'Changed.'), 404: SCHEDULE_NOT_FOUND, 424: WORKFLOW_CHECKS[424] },
      handle: ({ params, body }, context) => updateSchedule(params.id, body, context),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/schedules/{id}',
      operationId: 'deleteSchedule',
      scope: 'control',
      summary: 'Delete a schedule',
      description: 'No more fires; the runs it started are left as they are.',
      tags: ['schedules'],
      params: ScheduleParamsSchema,
      responses: { 204: { description: 'Deleted.' }, 404: SCHEDULE_NOT_FOUND },
      handle: ({ params }, context) => deleteSchedule(params.id, context),
    }),
    ...(['pause', 'unpause'] as const).map((action) =>
      defineRoute({
        method: 'POST',
        path: `/schedules/{id}/${action}`,
        operationId: `${action}Schedule`,
        scope: 'control',
        summary: action === 'pause' ? 'Pause a schedule: no fires until unpaused' : 'Unpause a schedule: it fires again from now on',
        tags: ['schedules'],
        params: ScheduleParamsSchema,
        body: { schema: SchedulePauseBodySchema, optional: true },
        responses: { 200: success(ScheduleViewSchema, action === 'pause' ? 'Paused.' : 'Unpaused.'), 404: SCHEDULE_NOT_FOUND },
        handle: ({ params, body }, context) => pauseSchedule(params.id, action === 'pause', body.note, context),
      }),
    ),
    defineRoute({
      method: 'POST',
      path: '/schedules/{id}/trigger',
      operationId: 'triggerSchedule',
      scope: 'control',
      summary: 'Fire a schedule now',
      description: "One fire at once, paused or not, under the schedule's overlap policy or the one given.",
      tags: ['schedules'],
      params: ScheduleParamsSchema,
      body: { schema: ScheduleTriggerBodySchema, optional: true },
      responses: { 202: success(ScheduleFiresSchema, 'Handed to the engine.'), 404: SCHEDULE_NOT_FOUND },
      handle: ({ params, body }, context) => triggerSchedule(params.id, body.overlap, context),
    }),
    defineRoute({
      method: 'POST',
      path: '/schedules/{id}/backfill',
      operationId: 'backfillSchedule',
      scope: 'control',
      summary: 'Fire a schedule for every time of a past range',
      tags: ['schedules'],
      params: ScheduleParamsSchema,
      body: { schema: ScheduleBackfillBodySchema },
      responses: { 202: success(ScheduleFiresSchema, 'Handed to the engine.'), 404: SCHEDULE_NOT_FOUND },
      handle: ({ params, body }, context) => backfillSchedule(params.id, body, context),
    }),
  ];
}
