import type { SerializedFailure } from '../domain/run.js';
import { textOf, thrownField, thrownMessage, thrownName } from './thrownValues.js';

/**
 * Errors a workflow author meets. Both engines raise exactly these inside workflow code, so a `catch` written
 * against them works the same on the embedded engine and on Temporal.
 */

/** Thrown by a step to fail at once, without retries. */
export class NonRetryableError extends Error {
  override name = 'NonRetryableError';
  readonly nonRetryable = true;
}

/**
 * flowgate would not connect to a webhook target or a run's callback receiver: the address it names or resolves to is
 * loopback, private, link-local (cloud metadata), unspecified, multicast or reserved, and OUTBOUND_ALLOWLIST does not
 * open it (docs/reliability.md). Not retried: the same URL resolves to the same kind of address.
 */
export class OutboundAddressRefusedError extends NonRetryableError {
  override name = 'OutboundAddressRefusedError';
  constructor(
    message: string,
    /** The host of the URL (or of the redirect) that was refused. */
    readonly host: string,
    /** The address it named or resolved to. */
    readonly address: string,
  ) {
    super(message);
  }
}

/** Raised inside a workflow whose run was asked to stop (cancel). Let it propagate to end the run as cancelled. */
export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor(message = 'Workflow cancelled') {
    super(message);
  }
}

/** A step failed after its retries; `failure` is the original error of its last attempt. */
export class StepFailedError extends Error {
  override name = 'StepFailedError';
  constructor(
    readonly activityType: string,
    readonly failure: SerializedFailure,
  ) {
    super(`Step ${activityType} failed: ${failure.message}`);
  }
}

/**
 * A child workflow ended in a status other than completed, or could not run at all (a workflow its catalog does not
 * serve: `failure` and `cause` are a WorkflowNotFoundError saying it does not exist, and `childRunId` may be empty).
 * `cause` is the child's failure as an Error, `failure` the same in serialized form.
 */
export class ChildWorkflowFailedError extends Error {
  override name = 'ChildWorkflowFailedError';
  constructor(
    readonly childWorkflowId: string,
    readonly childRunId: string,
    readonly status: string,
    readonly failure: SerializedFailure | null,
  ) {
    super(`Child workflow ${childWorkflowId} ended ${status}${failure ? `: ${failure.message}` : ''}`, failure ? { cause: failureToError(failure) } : undefined);
  }
}

/** The child failure of a call to a workflow that its catalog does not serve, the same on both engines. */
export function childWorkflowNotFound(workflowName: string, catalog: string, detail = ''): SerializedFailure {
  return { name: 'WorkflowNotFoundError', message: `Workflow "${workflowName}" does not exist in catalog "${catalog}"${detail}`, retryable: false };
}

/**
 * The failure of a child whose workflow id has an open run already: what ctx.executeChild's ChildWorkflowFailedError
 * carries on both engines (Temporal refuses the start, the embedded engine too), so workflow code tests one class.
 */
export function childIdTaken(workflowId: string): SerializedFailure {
  return { name: 'WorkflowAlreadyStartedError', message: `Workflow ${workflowId} is already running: a child needs a workflow id no open run has`, retryable: false };
}

/**
 * A step attempt that outlived its `timeoutMs`, worded alike on both engines (Temporal's own words are "activity
 * StartToClose timeout"); `attempt` when known. Worth retrying: the next attempt may be faster.
 */
export function stepTimedOut(activityType: string, attempt: number | undefined, timeoutMs: number | undefined): SerializedFailure {
  const which = attempt === undefined ? '' : ` attempt ${attempt}`;
  const limit = timeoutMs === undefined ? '' : ` after ${timeoutMs} ms`;
  return { name: 'StepTimeoutError', message: `Step ${activityType}${which} timed out${limit}`, retryable: true };
}

/** A webhook wait with a time limit got no reply in time. */
export class WebhookTimeoutError extends Error {
  override name = 'WebhookTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`No webhook reply arrived within ${timeoutMs} ms`);
  }
}

/**
 * A webhook reply reached the run that its workflow's feedbackSchema refuses. POST /workflow/feedback checks replies
 * against the schema the catalog publishes before delivering them, so this is met only when that schema and the
 * running code's differ (workers of two releases at once, a reply buffered before a deploy changed the schema).
 */
export class FeedbackValidationError extends Error {
  override name = 'FeedbackValidationError';
}

/** The workflow code did not call the same steps in the same order when a run was replayed after a reset. */
export class NondeterminismError extends Error {
  override name = 'NondeterminismError';
}

const MAX_CAUSE_DEPTH = 5;

/** Serialises anything thrown into the engine-neutral failure shape: class name and message, never a stack. */
export function serializeFailure(error: unknown, depth = 0): SerializedFailure {
  if (error instanceof StepFailedError) {
    return { ...error.failure, activityType: error.activityType };
  }
  if (error instanceof ChildWorkflowFailedError) {
    // The parent fails with the error it got; the child's own failure (lossless: activityType, retryable) is its cause.
    return { name: error.name, message: error.message, ...(error.failure ? { cause: { ...error.failure } } : {}) };
  }
  if (error instanceof Error) {
    // Read safely: a thrown value's getters may throw, and its message may be no string (thrownValues.ts).
    const failure: SerializedFailure = { name: thrownName(error), message: thrownMessage(error) };
    const nonRetryable = thrownField(error, 'nonRetryable');
    if (typeof nonRetryable === 'boolean') failure.retryable = !nonRetryable;
    const cause = thrownField(error, 'cause');
    if (cause !== undefined && depth < MAX_CAUSE_DEPTH) failure.cause = serializeFailure(cause, depth + 1);
    return failure;
  }
  if (typeof error === 'object' && error !== null && typeof thrownField(error, 'message') === 'string') {
    return { name: thrownName(error), message: thrownMessage(error) };
  }
  return { name: 'Error', message: textOf(error) };
}

/** Rebuilds a throwable from a serialized failure, keeping its original name and cause chain. */
export function failureToError(failure: SerializedFailure, depth = 0): Error {
  const cause = failure.cause !== undefined && depth < MAX_CAUSE_DEPTH ? { cause: failureToError(failure.cause, depth + 1) } : undefined;
  const error = new Error(failure.message, cause);
  error.name = failure.name;
  if (failure.retryable === false) (error as Error & { nonRetryable?: boolean }).nonRetryable = true;
  return error;
}
