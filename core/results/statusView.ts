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
 * A run's times as ISO 8601, kept for the last few distinct times: a run polled for its status answers with the same
 * two times again and again, and formatting them was the largest part of building the answer. Keyed by the time, not
 * by the Date: an engine that reads its runs afresh (Temporal) makes new Dates for every answer.
 */
const recent = new Map<number, string>();
const RECENT_TIMES = 64;

function isoTime(date: Date): string {
  const time = date.getTime();
  let text = recent.get(time);
  if (text === undefined) {
    text = date.toISOString();
    if (recent.size >= RECENT_TIMES) recent.clear();
    recent.set(time, text);
  }
  return text;
}
