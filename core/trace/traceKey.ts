import type { RunDescription } from '../domain/run.js';
import type { TraceKey } from '../domain/trace.js';

export function traceKeyOf(run: RunDescription): TraceKey {
  return { workflowName: run.workflowName, workflowId: run.workflowId, runId: run.runId, startedAt: run.startedAt };
}

/**
 * The path of a run's trace relative to a store's root: `<workflowName>/<ISO start time>_<workflowId>_<runId>.json`.
 * The run id is part of the name because a continue-as-new run can start in the same millisecond as the run
 * before it; the S3 key uses the same name. Path-unsafe characters in names and ids are percent-encoded, so a
 * workflow id can never climb out of the directory.
 */
export function traceRelativePath(key: TraceKey): string {
  const fileName = `${key.startedAt.toISOString()}_${encodeSegment(key.workflowId)}_${key.runId}.json`;
  return `${encodeSegment(key.workflowName)}/${fileName}`;
}

function encodeSegment(value: string): string {
  // encodeURIComponent leaves "." alone; a leading dot would make hidden files or "..".
  return encodeURIComponent(value).replace(/^\./, '%2E');
}
