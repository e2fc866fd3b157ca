import type { WorkflowContext, WorkflowInfo } from '../../core/definition/context.js';
import { executeChild } from './childWorkflows.js';
import { ContinueAsNewRequest } from './closings.js';
import { Payload } from './payload.js';
import type { RunExecution } from './runExecution.js';
import { never } from './never.js';
import { waitForWebhook } from './webhookWait.js';

/** The ctx handed to a workflow function on the memory engine. */
export function createWorkflowContext(execution: RunExecution): WorkflowContext {
  return {
    info: workflowInfo(execution),
    get cancellationRequested() {
      return execution.cancelRequested;
    },
    sleep: (ms) => sleep(execution, ms),
    waitForWebhook: (request) => waitForWebhook(execution.currentScope(), request),
    continueAsNew: async (input) => {
      // Thrown like Temporal's ContinueAsNew, so `finally` blocks run; the run closes when it leaves the function.
      throw new ContinueAsNewRequest(Payload.of(input));
    },
    executeChild: (workflow, input, options) =>
      executeChild(execution.currentScope(), workflow, input, options) as Promise<never>,
    nonCancellable: (fn) => execution.host.scopes.run({ execution, shielded: true }, fn),
  };
}

function workflowInfo(execution: RunExecution): WorkflowInfo {
  const run = execution.record.snapshot();
  return Object.freeze({
    workflowId: run.workflowId,
    runId: run.runId,
    workflowName: run.workflowName,
    catalog: run.catalog,
    firstRunId: run.firstRunId,
    ...(run.continuedFromRunId ? { continuedFromRunId: run.continuedFromRunId } : {}),
    ...(run.parent ? { parent: run.parent } : {}),
    ...(run.root ? { root: run.root } : {}),
    startedAt: new Date(run.startedAt),
  });
}

/** A durable timer: timer_started, then timer_fired; a cancel request (outside nonCancellable) rejects it. */
function sleep(execution: RunExecution, ms: number): Promise<void> {
  if (typeof ms !== 'number' || !(ms >= 0)) return Promise.reject(new RangeError(`sleep: ms must be a number >= 0, got ${String(ms)}`));
  const scope = execution.currentScope();
  const timerId = String(execution.nextOrdinal('timer'));
  const call = execution.call('timer', 'sleep');
  if (!call) return never();
  if (call.replayed) return execution.replay(call.record);
  if (execution.isCancelled(scope)) return execution.settle(call, execution.cancelledOutcome('Timer cancelled'));
  execution.append('timer_started', { timerId, durationMs: ms });
  return new Promise<void>((resolve) => {
    let withdrawCancel = (): void => {};
    const stopTimer = execution.setTimer(ms, () => {
      withdrawCancel();
      execution.append('timer_fired', { timerId });
      resolve(execution.settle(call, { ok: true, value: Payload.UNDEFINED }));
    });
    withdrawCancel = execution.onCancel(scope, () => {
      stopTimer();
      resolve(execution.settle(call, execution.cancelledOutcome('Timer cancelled')));
    });
  });
}
