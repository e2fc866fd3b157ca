import type { CreateScheduleRequest, UpdateScheduleRequest } from '../../api/scheduleRequests.js';
import type { ScheduleView } from '../../api/scheduleViews.js';
import { requireWorkflow, type Access } from '../../domain/access.js';
import type { ScheduleDefinition } from '../../domain/schedule.js';
import { toScheduleView } from '../../results/scheduleView.js';
import { validateWorkflowInput } from '../../validation/inputValidator.js';
import type { CoreDeps } from '../deps.js';
import { resolveWorkflowType } from '../resolveWorkflowType.js';
import { definitionOf, updatedDefinition } from './scheduleDefinition.js';
import { visibleSchedule } from './readSchedules.js';

type WriteDeps = Pick<CoreDeps, 'engine' | 'defaultCatalog' | 'actor'>;

/**
 * POST /schedules. The workflow and its input are checked now, as a start would check them, so a schedule that could
 * never start its run is refused at once (a worker need not run yet).
 */
export async function createSchedule(deps: WriteDeps, request: CreateScheduleRequest, access?: Access): Promise<ScheduleView> {
  const definition = definitionOf(request, deps.defaultCatalog);
  await checkWorkflow(deps, definition, access);
  return toScheduleView(await deps.engine.schedules.create(definition, deps.actor));
}

/** PATCH /schedules/{id}: the current definition with the request's fields, checked as a create is. */
export async function updateSchedule(deps: WriteDeps, scheduleId: string, request: UpdateScheduleRequest, access?: Access): Promise<ScheduleView> {
  const current = await visibleSchedule(deps, scheduleId, access);
  const definition = updatedDefinition(current.definition, request);
  await checkWorkflow(deps, definition, access);
  // What another request changed meanwhile (a pause, say) stays: only what this request changes is written.
  return toScheduleView(await deps.engine.schedules.update(definition, deps.actor, current.definition));
}

async function checkWorkflow(deps: WriteDeps, definition: ScheduleDefinition, access: Access): Promise<void> {
  requireWorkflow(access, definition);
  const type = await resolveWorkflowType(deps, definition.workflowName, definition.catalog, { needsWorker: false });
  validateWorkflowInput(type.name, type.inputSchema, definition.input);
}
