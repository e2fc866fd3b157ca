import type { RunStatusView } from '../api/views.js';
import type { RunDescription } from '../domain/run.js';

export function toStatusView(run: RunDescription): RunStatusView {
  const view: RunStatusView = {
    workflowId: run.workflowId,
    runId: run.runId,
    workflowName: run.workflowName,
    catalog: run.catalog,
    status: run.status,
    startedAt: isoTime(run.startedAt),
    closedAt: run.closedAt ? isoTime(run.closedAt) : null,
  };
  // Assigned, not spread from conditional literals: the status answer is the hottest path there is (docs/performance.md).
  if (run.rerunOf) view.rerunOf = { workflowId: run.rerunOf.workflowId, runId: run.rerunOf.runId };
  if (run.startedBy !== undefined) view.startedBy = run.startedBy;
  if (run.scheduleId !== undefined) view.scheduleId = run.scheduleId;
  return view;
}

/**
 * A run's times as ISO 8601, formatted once per Date: an engine that keeps its runs (the embedded one) hands the same
 * Date to every status request of a run, and formatting was the largest part of building the answer.
 */
const formatted = new WeakMap<Date, string>();

function isoTime(date: Date): string {
  let text = formatted.get(date);
  if (text === undefined) {
    text = date.toISOString();
    formatted.set(date, text);
  }
  return text;
}
