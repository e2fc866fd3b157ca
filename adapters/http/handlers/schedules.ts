import type { BackfillRequest, CreateScheduleRequest, ListSchedulesRequest, UpdateScheduleRequest } from '../../../core/api/scheduleRequests.js';
import type { ScheduleFiresView, ScheduleListView, ScheduleView } from '../../../core/api/scheduleViews.js';
import type { OverlapPolicy } from '../../../core/domain/schedule.js';
import { ok, type RouteContext, type RouteResult } from '../route.js';

/* Schedules (docs/schedules.md): each endpoint hands its validated request to its use case. */

/** POST /schedules: 201 with the schedule. */
export async function createSchedule(body: CreateScheduleRequest, context: RouteContext): Promise<RouteResult<ScheduleView>> {
  return { kind: 'json', status: 201, body: await context.api.createSchedule(body) };
}

export async function listSchedules(query: ListSchedulesRequest, context: RouteContext): Promise<RouteResult<ScheduleListView>> {
  return ok(await context.api.listSchedules(query));
}

export async function getSchedule(id: string, context: RouteContext): Promise<RouteResult<ScheduleView>> {
  return ok(await context.api.getSchedule(id));
}

export async function updateSchedule(id: string, body: UpdateScheduleRequest, context: RouteContext): Promise<RouteResult<ScheduleView>> {
  return ok(await context.api.updateSchedule(id, body));
}

export async function deleteSchedule(id: string, context: RouteContext): Promise<RouteResult<never>> {
  await context.api.deleteSchedule(id);
  return { kind: 'no-content' };
}

export async function pauseSchedule(id: string, paused: boolean, note: string | undefined, context: RouteContext): Promise<RouteResult<ScheduleView>> {
  return ok(await context.api.setSchedulePaused(id, paused, note));
}

export async function triggerSchedule(id: string, overlap: OverlapPolicy | undefined, context: RouteContext): Promise<RouteResult<ScheduleFiresView>> {
  return { kind: 'json', status: 202, body: await context.api.triggerSchedule(id, overlap) };
}

export async function backfillSchedule(id: string, body: BackfillRequest, context: RouteContext): Promise<RouteResult<ScheduleFiresView>> {
  return { kind: 'json', status: 202, body: await context.api.backfillSchedule(id, body) };
}
