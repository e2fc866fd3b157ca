import type { ChildWorkflowOptions } from '../../core/definition/context.js';
import { CancelledError, ChildWorkflowFailedError, childWorkflowNotFound } from '../../core/definition/failures.js';
import { UnsupportedWorkflowError } from '../../core/domain/errors.js';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import { Payload } from './payload.js';
import type { RunScope } from './runHost.js';
import { never } from './never.js';
import type { RunRecord } from './runRecord.js';

/**
 * ctx.executeChild: starts the child (default id `<parent id>/<child name>-<n>`, the parent's catalog) and waits
 * for the end of its continue-as-new chain. A cancel of the parent is passed on to the child and, as with
 * Temporal's default WAIT_CANCELLATION_COMPLETED, the parent waits for the child to finish cancelling.
 */
export async function executeChild(
  scope: RunScope,
  workflow: WorkflowDefinition | string,
  input: unknown,
  options: ChildWorkflowOptions = {},
): Promise<unknown> {
  const { execution } = scope;
  const childName = typeof workflow === 'string' ? workflow : workflow?.name;
  if (typeof childName !== 'string' || childName.length === 0) {
    throw new TypeError('executeChild: expected a workflow definition or a workflow name');
  }
  const ordinal = execution.nextOrdinal('child');
  const call = execution.call('child', childName);
  if (!call) return never();
  if (call.replayed) return execution.replay(call.record);
  if (execution.isCancelled(scope)) return execution.settle(call, execution.cancelledOutcome(`Child workflow ${childName} not started: the run is cancelled`));

  const parent = execution.record.description;
  const workflowId = options.workflowId ?? `${parent.workflowId}/${childName}-${ordinal}`;
  const catalog = options.catalog ?? parent.catalog;
  let child: RunRecord;
  try {
    child = execution.host.startChild({
      workflowName: childName,
      catalog,
      workflowId,
      input,
      parent: { workflowId: parent.workflowId, runId: parent.runId },
      root: parent.root ?? { workflowId: parent.workflowId, runId: parent.runId },
    });
  } catch (error) {
    if (!(error instanceof UnsupportedWorkflowError)) return execution.settle(call, { ok: false, error });
    // As on Temporal, where the child's run fails at once: the parent sees a failed child that does not exist.
    const failure = childWorkflowNotFound(childName, catalog);
    execution.append('child_failed', { childWorkflowId: workflowId, status: 'failed', error: failure });
    return execution.settle(call, { ok: false, error: new ChildWorkflowFailedError(workflowId, '', 'failed', failure) });
  }
  execution.childWorkflowIds.add(workflowId);
  execution.append('child_started', { workflowName: childName, childWorkflowId: workflowId, childRunId: child.description.runId });

  let cancelledByParent = false;
  const withdrawCancel = execution.onCancel(scope, () => {
    cancelledByParent = true;
    execution.host.cancelChild(workflowId, parent.runId);
  });
  const last = await execution.host.chainEnd(child);
  withdrawCancel();
  if (execution.abandoned) return never();

  const { status, runId: childRunId } = last.description;
  if (status === 'completed') {
    // The child's own payload, shared: the parent's history shows it without a copy.
    const output = last.output ?? Payload.UNDEFINED;
    execution.append('child_completed', { childWorkflowId: workflowId, childRunId, output });
    return execution.settle(call, { ok: true, value: output });
  }
  execution.append('child_failed', { childWorkflowId: workflowId, childRunId, status, error: last.failure });
  // The parent asked for this cancel, so its code sees a cancellation it can let propagate to end as cancelled.
  const error =
    cancelledByParent && status === 'cancelled'
      ? new CancelledError(`Child workflow ${workflowId} was cancelled`)
      : new ChildWorkflowFailedError(workflowId, childRunId, status, last.failure);
  return execution.settle(call, { ok: false, error });
}
