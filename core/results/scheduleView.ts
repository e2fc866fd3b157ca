import type { ScheduleSpecView, ScheduleView } from '../api/scheduleViews.js';
import { formatDuration, type ScheduleDescription, type ScheduleSpec } from '../domain/schedule.js';

export function toScheduleView(schedule: ScheduleDescription): ScheduleView {
  const { definition, state } = schedule;
  return {
    scheduleId: definition.scheduleId,
    workflowName: definition.workflowName,
    catalog: definition.catalog,
    input: definition.input,
    spec: toSpecView(definition.spec),
    policy: {
      overlap: definition.policy.overlap,
      catchupWindowSeconds: Math.round(definition.policy.catchupWindowMs / 1000),
      pauseOnFailure: definition.policy.pauseOnFailure,
    },
    paused: state.paused,
    note: state.note,
    actionCount: state.actionCount,
    missedCount: state.missedCount,
    nextFireTimes: state.nextFireTimes.map((time) => time.toISOString()),
    recentActions: state.recentActions.map((action) => ({
      scheduledAt: action.scheduledAt.toISOString(),
      startedAt: action.startedAt.toISOString(),
      workflowId: action.run.workflowId,
      runId: action.run.runId,
    })),
    runningRuns: state.runningRuns.map((run) => ({ workflowId: run.workflowId, runId: run.runId })),
    createdAt: schedule.createdAt.toISOString(),
    updatedAt: schedule.updatedAt.toISOString(),
    ...(schedule.createdBy === undefined ? {} : { createdBy: schedule.createdBy }),
    ...(schedule.updatedBy === undefined ? {} : { updatedBy: schedule.updatedBy }),
  };
}

function toSpecView(spec: ScheduleSpec): ScheduleSpecView {
  const { calendar } = spec;
  const when =
    calendar.kind === 'cron'
      ? { cron: [...calendar.expressions] }
      : { every: formatDuration(calendar.everyMs), ...(calendar.offsetMs > 0 ? { offset: formatDuration(calendar.offsetMs) } : {}) };
  return {
    ...when,
    timezone: spec.timezone,
    startAt: spec.startAt ? spec.startAt.toISOString() : null,
    endAt: spec.endAt ? spec.endAt.toISOString() : null,
    jitterSeconds: spec.jitterMs / 1000,
  };
}
