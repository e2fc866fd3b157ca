import type { WorkflowInfo } from '@temporalio/workflow';
import type { WorkflowDetails } from '../../core/definition/hooks.js';

/**
 * Temporal's workflowInfo() as worker hooks see a run (docs/hooks.md: workflowDetails). Pure, so the sandbox (activity
 * headers) and the worker (sink calls, which receive the same info) build exactly the same object.
 */
export function workflowDetailsOf(info: WorkflowInfo): WorkflowDetails {
  return {
    attempt: info.attempt,
    ...(info.continuedFromExecutionRunId ? { continuedFromExecutionRunId: info.continuedFromExecutionRunId } : {}),
    firstExecutionRunId: info.firstExecutionRunId,
    ...(info.parent ? { parent: { runId: info.parent.runId, workflowId: info.parent.workflowId, namespace: info.parent.namespace } } : {}),
    ...(info.root ? { root: { runId: info.root.runId, workflowId: info.root.workflowId } } : {}),
    runId: info.runId,
    runStartTime: info.runStartTime.getTime(),
    startTime: info.startTime.getTime(),
    workflowId: info.workflowId,
    workflowType: info.workflowType,
  };
}
