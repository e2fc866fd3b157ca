import type { BackfillRequest } from '../../api/scheduleRequests.js';
import type { ScheduleFiresView, ScheduleView } from '../../api/scheduleViews.js';
import type { Access } from '../../domain/access.js';
import { invalidSchedule, type OverlapPolicy } from '../../domain/schedule.js';
import { toScheduleView } from '../../results/scheduleView.js';
import type { CoreDeps } from '../deps.js';
import { visibleSchedule } from './readSchedules.js';

type ControlDeps = Pick<CoreDeps, 'engine' | 'actor'>;

/** POST /schedules/{id}/pause and /unpause. */
export async function setSchedulePaused(deps: ControlDeps, scheduleId: string, paused: boolean, note: string | undefined, access?: Access): Promise<ScheduleView> {
  await visibleSchedule(deps, scheduleId, access);
  const said = note ?? (paused ? 'Paused' : 'Unpaused') + (deps.actor === undefined ? '' : ` by ${deps.actor}`);
  return toScheduleView(await deps.engine.schedules.setPaused(scheduleId, paused, said, deps.actor));
}

/** POST /schedules/{id}/trigger: one fire now. */
export async function triggerSchedule(deps: ControlDeps, scheduleId: string, overlap: OverlapPolicy | undefined, access?: Access): Promise<ScheduleFiresView> {
  await visibleSchedule(deps, scheduleId, access);
  await deps.engine.schedules.trigger(scheduleId, overlap, deps.actor);
  return { scheduleId, fires: 1 };
}

/** POST /schedules/{id}/backfill: a fire for every time of the spec from startAt to endAt (both included), which must lie in the past. */
export async function backfillSchedule(deps: ControlDeps & Pick<CoreDeps, 'clock'>, scheduleId: string, request: BackfillRequest, access?: Access): Promise<ScheduleFiresView> {
  const startAt = new Date(request.startAt);
  const endAt = new Date(request.endAt);
  if (!(endAt.getTime() > startAt.getTime())) throw invalidSchedule([{ path: ['endAt'], message: 'endAt must be later than startAt' }]);
  if (endAt.getTime() > deps.clock.now()) throw invalidSchedule([{ path: ['endAt'], message: 'endAt must not be in the future: a backfill fires for past times' }]);
  await visibleSchedule(deps, scheduleId, access);
  const fires = await deps.engine.schedules.backfill(scheduleId, { startAt, endAt }, request.overlap, deps.actor);
  return { scheduleId, fires };
}

/** DELETE /schedules/{id}: no more fires; the runs it started are left as they are. */
export async function deleteSchedule(deps: ControlDeps, scheduleId: string, access?: Access): Promise<void> {
  await visibleSchedule(deps, scheduleId, access);
  await deps.engine.schedules.delete(scheduleId);
}
