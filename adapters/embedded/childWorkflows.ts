import type { ChildWorkflowOptions } from '../../core/definition/context.js';
import { CancelledError, ChildWorkflowFailedError, childIdTaken, childWorkflowNotFound } from '../../core/definition/failures.js';
import { CatalogNotAvailableError, UnsupportedWorkflowError, WorkflowAlreadyStartedError } from '../../core/domain/errors.js';
import type { SerializedFailure } from '../../core/domain/run.js';
import { checkChildStart, checkJsonInput, childWorkflowName, defaultChildWorkflowId } from '../../core/definition/runRules.js';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import type { CommandCall } from './commandLog.js';
import { Payload } from './payload.js';
import type { RunScope } from './runCommands.js';
import { never } from './never.js';

/**
 * ctx.executeChild: starts the child (default id: runRules.ts `defaultChildWorkflowId`; the parent's catalog) and waits
 * for the end of its continue-as-new chain. A cancel of the parent is passed on to the child and, as with
 * Temporal's default WAIT_CANCELLATION_COMPLETED, the parent waits for the child to finish cancelling.
 */
export async function executeChild(
  scope: RunScope,
  workflow: WorkflowDefinition | string,
  input: unknown,
  options: ChildWorkflowOptions = {},
): Promise<unknown> {
  const { commands } = scope;
  const childName = childWorkflowName(workflow);
  const ordinal = commands.nextOrdinal('child');
  const parent = commands.run;
  const workflowId = options.workflowId ?? defaultChildWorkflowId(parent.workflowId, childName, ordinal);
  // Mistakes of the workflow code, thrown before anything is recorded (as on Temporal), so a replay throws them again.
  checkChildStart(workflowId, options);
  checkJsonInput(`The input of child workflow ${childName} (${workflowId})`, input);
  const inputPayload = Payload.of(input);
  const call = commands.call('child', childName);
  if (!call) return never();
  if (call.mode === 'replayed') return commands.replayed(call);
  const progress = call.record.progress;
  // After a restart the child started before is waited for again, never started a second time.
  if (call.mode === 'resumed' && progress?.kind === 'child') {
    commands.childStarted(progress.childWorkflowId);
    return awaitChild(scope, call, progress.childWorkflowId, progress.childRunId);
  }
  if (commands.isCancelled(scope)) return commands.settle(call, commands.cancelledOutcome(`Child workflow ${childName} not started: the run is cancelled`));

  const catalog = options.catalog ?? parent.catalog;
  let childRunId: string;
  try {
    childRunId = commands.services.startChild({
      workflowName: childName,
      catalog,
      workflowId,
      input: inputPayload,
      parent: { workflowId: parent.workflowId, runId: parent.runId },
      root: parent.root ?? { workflowId: parent.workflowId, runId: parent.runId },
    }).runId;
  } catch (error) {
    const failure = childStartRefusal(error, childName, catalog, workflowId);
    if (!failure) return commands.settle(call, { ok: false, error });
    // As on Temporal, where the child's start is refused: the parent sees a failed child (that does not exist, or
    // whose id is taken), an error a replay after a restart rebuilds with its class.
    commands.append('child_failed', { childWorkflowId: workflowId, status: 'failed', error: failure });
    return commands.settle(call, { ok: false, error: new ChildWorkflowFailedError(workflowId, '', 'failed', failure) });
  }
  commands.childStarted(workflowId);
  commands.append('child_started', { workflowName: childName, childWorkflowId: workflowId, childRunId });
  commands.progressed(call, { kind: 'child', childWorkflowId: workflowId, childRunId });
  return awaitChild(scope, call, workflowId, childRunId);
}

async function awaitChild(scope: RunScope, call: CommandCall, workflowId: string, childRunId: string): Promise<unknown> {
  const { commands } = scope;
  const parentRunId = commands.run.runId;
  let cancelledByParent = false;
  const withdrawCancel = commands.onCancel(scope, () => {
    cancelledByParent = true;
    commands.services.cancelChild(workflowId, parentRunId);
  });
  const end = await commands.services.awaitChild(workflowId, childRunId);
  withdrawCancel();
  if (commands.abandoned) return never();

  const { status, runId: lastRunId } = end;
  if (status === 'completed') {
    // The child's own payload, shared: the parent's history shows it without a copy.
    const output = end.output ?? Payload.UNDEFINED;
    commands.append('child_completed', { childWorkflowId: workflowId, childRunId: lastRunId, output });
    return commands.settle(call, { ok: true, value: output });
  }
  commands.append('child_failed', { childWorkflowId: workflowId, childRunId: lastRunId, status, error: end.failure });
  // The parent asked for this cancel, so its code sees a cancellation it can let propagate to end as cancelled.
  const error =
    cancelledByParent && status === 'cancelled'
      ? new CancelledError(`Child workflow ${workflowId} was cancelled`)
      : new ChildWorkflowFailedError(workflowId, lastRunId, status, end.failure);
  return commands.settle(call, { ok: false, error });
}

/**
 * Why the engine refused a child's start, as the failure its parent's ChildWorkflowFailedError carries; undefined for
 * an error of the engine itself. A catalog no worker serves here cannot take the child (on Temporal the child waits on
 * its task queue until a worker of that catalog polls it: docs/authoring.md).
 */
function childStartRefusal(error: unknown, childName: string, catalog: string, workflowId: string): SerializedFailure | undefined {
  if (error instanceof WorkflowAlreadyStartedError) return childIdTaken(workflowId);
  if (error instanceof UnsupportedWorkflowError) return childWorkflowNotFound(childName, catalog);
  if (error instanceof CatalogNotAvailableError) return { name: error.name, message: error.message, retryable: false };
  return undefined;
}
