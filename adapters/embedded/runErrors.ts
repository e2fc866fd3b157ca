// The errors the engine's commands answer for a run that is missing, closed or closing.
import { WorkflowClosedError, WorkflowNotFoundError, type FlowgateError } from '../../core/domain/errors.js';
import type { RunDescription, RunRef } from '../../core/domain/run.js';

export function notFound(ref: RunRef): never {
  if (ref.runId === undefined) throw new WorkflowNotFoundError(`Workflow ${ref.workflowId} not found`, { workflowId: ref.workflowId });
  throw new WorkflowNotFoundError(`Run ${ref.runId} of workflow ${ref.workflowId} not found`, { workflowId: ref.workflowId, runId: ref.runId });
}

export function closedError({ workflowId, runId, status }: RunDescription): FlowgateError {
  return new WorkflowClosedError(`Workflow ${workflowId} run ${runId} is already closed (${status})`, { workflowId, runId });
}

/** A run whose close is decided still shows `running` until the close is committed: its status would contradict. */
export function closingError({ workflowId, runId }: RunDescription): FlowgateError {
  return new WorkflowClosedError(`Workflow ${workflowId} run ${runId} is closing and takes no more commands`, { workflowId, runId });
}
