import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/workflow';
import { cancelledRunFailure, runTimedOutFailure, type SerializedFailure } from '../../../core/domain/run.js';
import { isRetryableFailure } from '../../../core/definition/retry.js';
import { stepTimedOut } from '../../../core/definition/failures.js';
import type { StepMeta } from './stepActivity.js';
import type { FailureDetail } from '../protocol.js';

const MAX_CAUSE_DEPTH = 5;

/**
 * A Temporal failure chain in flowgate's shape. An ApplicationFailure raised by flowgate code carries the original
 * error's class name as its `type`; everything else keeps its SDK class name.
 */
export function serializeTemporalFailure(error: unknown, depth = 0): SerializedFailure {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const failure: SerializedFailure = { name: failureName(error), message: error.message };
  if (error instanceof ApplicationFailure && error.nonRetryable === true) failure.retryable = false;
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) failure.cause = serializeTemporalFailure(error.cause, depth + 1);
  return failure;
}

function failureName(error: Error): string {
  if (error instanceof ApplicationFailure) return error.type || 'Error';
  return error.name || 'Error';
}

/** The lossless failure a flowgate workflow attached to its ApplicationFailure (see protocol FailureDetail). */
export function flowgateFailureOf(error: unknown): SerializedFailure | undefined {
  if (!(error instanceof ApplicationFailure)) return undefined;
  const detail = error.details?.[0] as Partial<FailureDetail> | undefined;
  const failure = detail?.flowgateFailure;
  return failure && typeof failure.name === 'string' && typeof failure.message === 'string' ? failure : undefined;
}

/** The failure of a step's last attempt, as the embedded engine reports it in StepFailedError. */
export function stepFailureOf(error: ActivityFailure, step: Pick<StepMeta, 'retry' | 'timeoutMs'>): SerializedFailure {
  const cause = error.cause;
  if (cause instanceof TimeoutFailure) {
    // Failed for good after its last attempt timed out: that attempt is the policy's last.
    const attempt = error.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? step.retry.maximumAttempts : undefined;
    return stepTimedOut(error.activityType, attempt, step.timeoutMs);
  }
  if (cause === undefined) return { name: 'ActivityFailure', message: error.message };
  const failure = serializeTemporalFailure(cause);
  const nonRetryable = cause instanceof ApplicationFailure && cause.nonRetryable === true;
  return { ...failure, retryable: isRetryableFailure(step.retry, { name: failure.name, nonRetryable }) };
}

export type ChildStatus = 'failed' | 'cancelled' | 'terminated' | 'timed_out';

/**
 * How a child run ended, and its failure, in the terms of the embedded engine's closings. `runTimeoutMs`: the limit the
 * child was started with, which the embedded engine names in its timed-out failure (Temporal's says only "timed out").
 */
export function childOutcomeOf(error: ChildWorkflowFailure, runTimeoutMs?: number): { status: ChildStatus; failure: SerializedFailure | null } {
  const cause = error.cause;
  if (cause instanceof CancelledFailure) {
    return { status: 'cancelled', failure: cancelledRunFailure() };
  }
  if (cause instanceof TerminatedFailure) {
    return { status: 'terminated', failure: { name: 'WorkflowTerminatedError', message: cause.message || 'The workflow run was terminated' } };
  }
  if (cause instanceof TimeoutFailure) {
    if (runTimeoutMs !== undefined) return { status: 'timed_out', failure: runTimedOutFailure(runTimeoutMs) };
    return { status: 'timed_out', failure: { name: 'WorkflowTimedOutError', message: cause.message || 'The run exceeded its run timeout' } };
  }
  return { status: 'failed', failure: flowgateFailureOf(cause) ?? (cause ? serializeTemporalFailure(cause) : null) };
}
