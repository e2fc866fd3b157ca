import type { RunStatusView } from '../api/views.js';
import type { RunDescription } from '../domain/run.js';

export function toStatusView(run: RunDescription): RunStatusView {
  return {
    workflowId: run.workflowId,
    runId: run.runId,
    workflowName: run.workflowName,
    catalog: run.catalog,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    closedAt: run.closedAt ? run.closedAt.toISOString() : null,
    ...(run.rerunOf ? { rerunOf: { workflowId: run.rerunOf.workflowId, runId: run.rerunOf.runId } } : {}),
    ...(run.startedBy === undefined ? {} : { startedBy: run.startedBy }),
    ...(run.scheduleId === undefined ? {} : { scheduleId: run.scheduleId }),
  };
}
