// The errors the engine's commands answer for a run that is missing, closed or closing.
import { runAlreadyClosed, runNotFound, WorkflowClosedError, type FlowgateError } from '../../core/domain/errors.js';
import type { RunDescription, RunRef } from '../../core/domain/run.js';

export function notFound(ref: RunRef): never {
  throw runNotFound(ref.workflowId, ref.runId);
}

export function closedError({ workflowId, runId, status }: RunDescription): FlowgateError {
  return runAlreadyClosed(workflowId, runId, status);
}

/** A run whose close is decided still shows `running` until the close is committed: its status would contradict. */
export function closingError({ workflowId, runId }: RunDescription): FlowgateError {
  return new WorkflowClosedError(`Workflow ${workflowId} run ${runId} is closing and takes no more commands`, { workflowId, runId });
}
