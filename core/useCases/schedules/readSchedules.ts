import type { ListSchedulesRequest } from '../../api/scheduleRequests.js';
import type { ScheduleListView, ScheduleView } from '../../api/scheduleViews.js';
import { mayUse, type Access } from '../../domain/access.js';
import { scheduleNotFound, type ScheduleDescription } from '../../domain/schedule.js';
import { toScheduleView } from '../../results/scheduleView.js';
import type { CoreDeps } from '../deps.js';
import { MAX_SCANNED_PAGES } from '../listRuns.js';

/** The schedule, or ScheduleNotFoundError when the key may not see its workflow (as if it did not exist). */
export async function visibleSchedule(deps: Pick<CoreDeps, 'engine'>, scheduleId: string, access?: Access): Promise<ScheduleDescription> {
  const schedule = await deps.engine.schedules.describe(scheduleId);
  if (!mayUse(access, schedule.definition)) throw scheduleNotFound(scheduleId);
  return schedule;
}


/** GET /schedules/{id} */
export async function getSchedule(deps: Pick<CoreDeps, 'engine'>, scheduleId: string, access?: Access): Promise<ScheduleView> {
  return toScheduleView(await visibleSchedule(deps, scheduleId, access));
}

/**
 * GET /schedules, by id. A key limited to catalogs or workflows sees only their schedules; as with runs, a page may
 * then hold fewer than `limit` and still have a nextPageToken.
 */
export async function listSchedules(deps: Pick<CoreDeps, 'engine'>, request: ListSchedulesRequest, access?: Access): Promise<ScheduleListView> {
  const schedules: ScheduleDescription[] = [];
  let pageToken = request.pageToken;
  for (let page = 0; page < MAX_SCANNED_PAGES; page += 1) {
    const list = await deps.engine.schedules.list({
      limit: request.limit - schedules.length,
      ...(request.workflowName === undefined ? {} : { workflowName: request.workflowName }),
      ...(pageToken === undefined ? {} : { pageToken }),
    });
    schedules.push(...list.schedules.filter((schedule) => mayUse(access, schedule.definition)));
    pageToken = list.nextPageToken ?? undefined;
    if (pageToken === undefined || schedules.length >= request.limit) break;
  }
  return { schedules: schedules.map(toScheduleView), nextPageToken: pageToken ?? null };
}
