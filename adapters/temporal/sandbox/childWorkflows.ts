import { ChildWorkflowFailure, executeChild as executeTemporalChild, isCancellation } from '@temporalio/workflow';
import type { ChildWorkflowOptions } from '../../../core/definition/context.js';
import { CancelledError, ChildWorkflowFailedError, childIdTaken } from '../../../core/definition/failures.js';
import { checkChildStart, checkJsonInput, childWorkflowName, defaultChildWorkflowId } from '../../../core/definition/runRules.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { RunState } from './runState.js';
import { checkPayload } from './payloadLimit.js';
import { childOutcomeOf } from './temporalFailures.js';

/** The definitions this worker serves, by name: where a child named by a string finds its run time limit. */
export type ServedDefinitions = (workflowName: string) => WorkflowDefinition | undefined;

/**
 * ctx.executeChild on Temporal: a child workflow of the type named by the definition (the default id of
 * core/definition/runRules.ts, the parent's catalog = task queue). Temporal's defaults match the embedded engine: a
 * parent's cancel reaches the child and the parent waits for it (WAIT_CANCELLATION_COMPLETED), and an open child is
 * terminated when its parent closes (ParentClosePolicy TERMINATE).
 */
export async function executeChild(
  run: RunState,
  workflow: WorkflowDefinition | string,
  input: unknown,
  options: ChildWorkflowOptions = {},
  servedHere: ServedDefinitions = () => undefined,
): Promise<unknown> {
  const childName = childWorkflowName(workflow);
  const ordinal = run.nextOrdinal('child');
  const workflowId = options.workflowId ?? defaultChildWorkflowId(run.info.workflowId, childName, ordinal);
  checkChildStart(workflowId, options);
  const taskQueue = options.catalog ?? run.info.catalog;
  const runTimeoutMs = childRunTimeoutMs(workflow, taskQueue === run.info.catalog ? servedHere : undefined);
  const what = `The input of child workflow ${childName} (${workflowId})`;
  checkJsonInput(what, input);
  checkPayload(what, input);
  try {
    return await executeTemporalChild(childName, {
      args: [input],
      workflowId,
      taskQueue,
      // The child's own limit, as the API gives a run it starts (and the embedded engine enforces for children too).
      ...(runTimeoutMs === undefined ? {} : { workflowRunTimeout: runTimeoutMs }),
    });
  } catch (error) {
    if (error instanceof ChildWorkflowFailure) {
      const { status, failure } = childOutcomeOf(error, runTimeoutMs);
      // The parent asked for this cancel, so its code sees a cancellation it can let propagate to end as cancelled.
      if (status === 'cancelled' && run.cancellationRequested) throw new CancelledError(`Child workflow ${workflowId} was cancelled`);
      throw new ChildWorkflowFailedError(error.execution.workflowId ?? workflowId, error.execution.runId ?? '', status, failure);
    }
    if (isCancellation(error)) throw new CancelledError(`Child workflow ${childName} not started: the run is cancelled`);
    // The SDK's WorkflowExecutionAlreadyStartedError (by name: its class lives in @temporalio/common): the failure the
    // embedded engine gives the same call.
    if (error instanceof Error && error.name === 'WorkflowExecutionAlreadyStartedError') {
      const failure = childIdTaken(workflowId);
      throw new ChildWorkflowFailedError(workflowId, '', 'failed', failure);
    }
    throw error;
  }
}

/**
 * The child's runTimeoutMs: from the definition the parent passed, else from this worker's definition of that name when
 * the child runs in the parent's catalog. A child named by a string in another catalog has none known here.
 */
function childRunTimeoutMs(workflow: WorkflowDefinition | string, servedHere: ServedDefinitions | undefined): number | undefined {
  const definition = typeof workflow === 'string' ? servedHere?.(workflow) : workflow;
  return definition?.runTimeoutMs;
}
