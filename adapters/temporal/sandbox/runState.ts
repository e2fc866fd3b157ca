import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import type { WorkflowInfo } from '../../../core/definition/context.js';
import type { FeedbackInbox } from './feedbackInbox.js';

/**
 * What one run's context shares between its operations. Held by the context object, not in module globals, so
 * nothing about a run leaks into another (no global dispatcher).
 */
export class RunState {
  private readonly ordinals = { webhook: 0, child: 0 };

  constructor(
    /** The workflow's root scope: cancelled exactly when a stop was requested for the run. */
    private readonly rootScope: CancellationScope,
    readonly inbox: FeedbackInbox,
    readonly info: WorkflowInfo,
  ) {}

  /** Must be called synchronously at the start of the workflow function, where the current scope is the root. */
  static capture(inbox: FeedbackInbox): RunState {
    return new RunState(CancellationScope.current(), inbox, coreWorkflowInfo());
  }

  get cancellationRequested(): boolean {
    return this.rootScope.consideredCancelled;
  }

  nextOrdinal(kind: 'webhook' | 'child'): number {
    this.ordinals[kind] += 1;
    return this.ordinals[kind];
  }
}

/** Temporal's workflowInfo() as the engine-neutral WorkflowInfo; the catalog is the task queue. */
export function coreWorkflowInfo(): WorkflowInfo {
  const info = workflowInfo();
  return Object.freeze({
    workflowId: info.workflowId,
    runId: info.runId,
    workflowName: info.workflowType,
    catalog: info.taskQueue,
    firstRunId: info.firstExecutionRunId,
    ...(info.continuedFromExecutionRunId ? { continuedFromRunId: info.continuedFromExecutionRunId } : {}),
    ...(info.parent ? { parent: { workflowId: info.parent.workflowId, runId: info.parent.runId, namespace: info.parent.namespace } } : {}),
    ...(info.root ? { root: { workflowId: info.root.workflowId, runId: info.root.runId } } : {}),
    // The time of this run's WorkflowExecutionStarted event, which is what describe reports as the run's start
    // (runStartTime is its first workflow task, a few ms later). A reset run's copied event keeps the old time.
    startedAt: new Date(info.startTime.getTime()),
  });
}
