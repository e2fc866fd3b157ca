import { CancellationScope, log, ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { CALLBACK_BACKOFF, type RunCallbackTarget } from '../../../core/domain/callback.js';
import { CALLBACK_ACTIVITY, CALLBACK_MEMO_KEY, CALLBACK_WORKFLOW_TYPE, callbackWorkflowId, type CallbackDelivery } from '../protocol.js';

/** Longest one delivery attempt may take: reading the result (a long-poll of up to 10 s) and the POST (10 s). */
const ATTEMPT_TIMEOUT_MS = 30_000;

/** The callback the run was started with (its memo), or undefined. */
function callbackTarget(): RunCallbackTarget | undefined {
  const value = workflowInfo().memo?.[CALLBACK_MEMO_KEY] as Partial<RunCallbackTarget> | undefined;
  if (typeof value?.url !== 'string' || typeof value.retryForMs !== 'number') return undefined;
  return { url: value.url, retryForMs: value.retryForMs };
}

/**
 * Called as the run closes on its own (completed, failed, cancelled): starts the child workflow that delivers its
 * callback. Abandoned, so it outlives the run; non-cancellable, so a cancelled run starts it too. A child that cannot
 * start is logged and the run closes as it would have: the callback is extra, the run's own outcome is not.
 */
export async function startCallbackDelivery(): Promise<void> {
  const target = callbackTarget();
  if (!target) return;
  const info = workflowInfo();
  const delivery: CallbackDelivery = { workflowId: info.workflowId, runId: info.runId, target };
  try {
    await CancellationScope.nonCancellable(() =>
      startChild(CALLBACK_WORKFLOW_TYPE, {
        workflowId: callbackWorkflowId(info.runId),
        taskQueue: info.taskQueue,
        args: [delivery],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      }),
    );
  } catch (error) {
    log.error('run callback not scheduled', { workflowId: info.workflowId, runId: info.runId, error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * The callback workflow: one activity, retried on CALLBACK_BACKOFF's schedule. The activity gives up by itself (a
 * non-retryable failure) once the next attempt would start after `retryForMs`, as the embedded engine does; the
 * schedule-to-close timeout only catches an attempt that hangs past that.
 */
export async function callbackWorkflow(delivery: CallbackDelivery): Promise<void> {
  const activities = proxyActivities<Record<typeof CALLBACK_ACTIVITY, (delivery: CallbackDelivery) => Promise<void>>>({
    startToCloseTimeout: ATTEMPT_TIMEOUT_MS,
    scheduleToCloseTimeout: delivery.target.retryForMs + ATTEMPT_TIMEOUT_MS,
    retry: {
      initialInterval: CALLBACK_BACKOFF.initialIntervalMs,
      backoffCoefficient: CALLBACK_BACKOFF.backoffCoefficient,
      maximumInterval: CALLBACK_BACKOFF.maximumIntervalMs,
    },
  });
  try {
    await activities[CALLBACK_ACTIVITY](delivery);
  } catch {
    // The activity logged why it stopped; the delivery is over either way.
  }
}
