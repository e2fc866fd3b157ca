import type { SerializedFailure } from '../../../core/domain/run.js';
import type { FailureDetail } from '../protocol.js';
import type { Failure } from './proto.js';
import { decodeFirst, decodePayload } from './values.js';

const MAX_CAUSE_DEPTH = 5;

/**
 * A Temporal failure in flowgate's shape. flowgate's worker attaches the lossless original as the first detail of
 * an ApplicationFailure (protocol FailureDetail); failures raised elsewhere (another SDK, the server) are described
 * from their proto: the ApplicationFailure's `type` is the original error class name.
 */
export function failureOf(failure: Failure | null | undefined, depth = 0): SerializedFailure {
  if (!failure) return { name: 'Error', message: 'The workflow run failed' };
  const detailed = flowgateFailureIn(failure);
  if (detailed) return detailed;
  const cause = failure.cause && depth < MAX_CAUSE_DEPTH ? failure.cause : undefined;
  // Wrappers: the interesting failure is their cause.
  if (failure.activityFailureInfo && cause) {
    const activityType = failure.activityFailureInfo.activityType?.name;
    return { ...failureOf(cause, depth + 1), ...(activityType ? { activityType } : {}) };
  }
  if (failure.childWorkflowExecutionFailureInfo && cause) return failureOf(cause, depth + 1);
  const serialized: SerializedFailure = { name: nameOf(failure), message: messageOf(failure) };
  if (failure.applicationFailureInfo?.nonRetryable) serialized.retryable = false;
  if (cause) serialized.cause = failureOf(cause, depth + 1);
  return serialized;
}

/** A step attempt's failure, named as the embedded engine names it (a timed-out attempt is a StepTimeoutError). */
export function stepFailureOf(failure: Failure | null | undefined): SerializedFailure {
  if (failure?.timeoutFailureInfo) return { name: 'StepTimeoutError', message: messageOf(failure) || 'The step attempt timed out', retryable: true };
  if (failure?.canceledFailureInfo) return { name: 'CancelledError', message: messageOf(failure) || 'Step cancelled' };
  return failureOf(failure);
}

/** The detail flowgate's worker attached to a failure (protocol FailureDetail), unchecked; undefined when none reads. */
export function failureDetailOf(failure: Failure | null | undefined): Partial<FailureDetail> | undefined {
  const details = failure?.applicationFailureInfo?.details;
  if (!details?.payloads?.length) return undefined;
  try {
    return decodeFirst(details) as Partial<FailureDetail> | undefined;
  } catch {
    // Details in an encoding this adapter cannot read: the failure is described from its proto instead.
    return undefined;
  }
}

function flowgateFailureIn(failure: Failure): SerializedFailure | undefined {
  const candidate = failureDetailOf(failure)?.flowgateFailure;
  return candidate && typeof candidate.name === 'string' && typeof candidate.message === 'string' ? candidate : undefined;
}

function nameOf(failure: Failure): string {
  if (failure.applicationFailureInfo) return failure.applicationFailureInfo.type || 'Error';
  if (failure.canceledFailureInfo) return 'CancelledError';
  if (failure.timeoutFailureInfo) return 'TimeoutError';
  if (failure.terminatedFailureInfo) return 'WorkflowTerminatedError';
  if (failure.serverFailureInfo) return 'ServerError';
  if (failure.activityFailureInfo) return 'ActivityFailure';
  if (failure.childWorkflowExecutionFailureInfo) return 'ChildWorkflowFailure';
  return 'Error';
}

/** The message, also when the sender encoded its common attributes (message and stack) into a payload. */
function messageOf(failure: Failure): string {
  if (failure.encodedAttributes) {
    try {
      const attributes = decodePayload(failure.encodedAttributes) as { message?: unknown } | undefined;
      if (typeof attributes?.message === 'string') return attributes.message;
    } catch {
      // Fall back to the plain message below.
    }
  }
  return failure.message ?? '';
}
