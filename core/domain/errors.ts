/**
 * Domain errors. Each has a stable `name` (the `error` field of response bodies), structured fields and a
 * reliable `instanceof`. Status codes are not decided here: adapters/http maps names to statuses in one table.
 */
export interface ErrorDetails {
  workflowId?: string;
  runId?: string;
  /** Seconds a client should wait before retrying (becomes `Retry-After`). */
  retryAfterSeconds?: number;
  /** Schema-validation issues (ValidationError only). */
  issues?: readonly ValidationIssue[];
  cause?: unknown;
}

export interface ValidationIssue {
  code: string;
  path: (string | number)[];
  message: string;
  [key: string]: unknown;
}

export abstract class FlowgateError extends Error {
  abstract override readonly name: string;
  readonly workflowId: string | undefined;
  readonly runId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly issues: readonly ValidationIssue[] | undefined;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.workflowId = details.workflowId;
    this.runId = details.runId;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.issues = details.issues;
  }
}

export type FlowgateErrorClass<N extends string> = (new (message: string, details?: ErrorDetails) => FlowgateError & {
  readonly name: N;
}) & { readonly errorName: N };

/** Makes a named error class; one line per error type instead of a copy-pasted class each. */
export function defineError<const N extends string>(errorName: N): FlowgateErrorClass<N> {
  const errorClass = class extends FlowgateError {
    static readonly errorName = errorName;
    override readonly name = errorName;
  };
  Object.defineProperty(errorClass, 'name', { value: errorName });
  return errorClass as unknown as FlowgateErrorClass<N>;
}

// The contract's first six names (docs/api.md).
export const ValidationError = defineError('ValidationError');
export const WorkflowNotFoundError = defineError('WorkflowNotFoundError');
export const UnsupportedWorkflowError = defineError('UnsupportedWorkflowError');
export const WorkflowExecutionTimedOutError = defineError('WorkflowExecutionTimedOutError');
export const WorkflowNotCompletedError = defineError('WorkflowNotCompletedError');

/**
 * Why a catalog cannot take a request (docs/api.md): the engine knows no catalog of that name (404), or it does but
 * no worker serves it right now (503 with Retry-After: a worker starting or restarting).
 */
export type CatalogUnavailableReason = 'unknown' | 'noLiveWorker';

/** Seconds a client should wait before asking a catalog without workers again. */
const CATALOG_RETRY_AFTER_SECONDS = 5;

export class CatalogNotAvailableError extends defineError('CatalogNotAvailableError') {
  readonly reason: CatalogUnavailableReason;

  constructor(message: string, details: ErrorDetails & { reason: CatalogUnavailableReason }) {
    super(message, details);
    this.reason = details.reason;
  }

  static unknown(catalog: string): CatalogNotAvailableError {
    return new CatalogNotAvailableError(`Catalog "${catalog}" is unknown to the engine`, { reason: 'unknown' });
  }

  static noLiveWorker(catalog: string): CatalogNotAvailableError {
    return new CatalogNotAvailableError(`No worker serves catalog "${catalog}" right now; retry shortly`, {
      reason: 'noLiveWorker',
      retryAfterSeconds: CATALOG_RETRY_AFTER_SECONDS,
    });
  }
}

// The others docs/api.md lists (those only HTTP itself causes are in adapters/http/transportErrors.ts).
export const WorkflowAlreadyStartedError = defineError('WorkflowAlreadyStartedError');
export const StepNotFoundError = defineError('StepNotFoundError');
export const StepNotCompletedError = defineError('StepNotCompletedError');
export const WorkflowClosedError = defineError('WorkflowClosedError');
export const TraceNotFoundError = defineError('TraceNotFoundError');
export const PayloadTooLargeError = defineError('PayloadTooLargeError');
/** No schedule of that id (docs/schedules.md). */
export const ScheduleNotFoundError = defineError('ScheduleNotFoundError');
/** A schedule of that id exists already: creating it again is refused, never an update. */
export const ScheduleAlreadyExistsError = defineError('ScheduleAlreadyExistsError');
/**
 * A valid API key that may not do this (docs/security.md): it lacks the scope the endpoint needs, or it is limited to
 * other catalogs or workflows. The message names the missing scope or the limit, never the key's secret.
 */
export const ForbiddenError = defineError('ForbiddenError');
/** An Idempotency-Key sent again with a different request while its stored answer lives (docs/idempotency.md). */
export const IdempotencyKeyReusedError = defineError('IdempotencyKeyReusedError');
/**
 * The embedded engine's Idempotency-Key records are full of keys still in force (MEMORY_MAX_IDEMPOTENCY_BYTES): a new
 * keyed start is refused, 503 with Retry-After (when the oldest key expires), rather than forgetting a key early.
 */
export const IdempotencyStoreFullError = defineError('IdempotencyStoreFullError');

// Failures of the engine itself (a dead connection, a timeout talking to it): 500 without leaking the cause,
// or 503 when the engine says it is temporarily unavailable.
export const EngineError = defineError('EngineError');
export const EngineUnavailableError = defineError('EngineUnavailableError');
/** The remote trace store (S3) cannot be reached right now: 503 with Retry-After. */
export const TraceStoreUnavailableError = defineError('TraceStoreUnavailableError');

// The answers both engines give about a run or a step by the same words (tests and clients read them), made here once.

/** No run of that id (and run id, when one is named). */
export function runNotFound(workflowId: string, runId?: string, cause?: unknown): FlowgateError {
  const message = runId ? `Run ${runId} of workflow ${workflowId} not found` : `Workflow ${workflowId} not found`;
  return new WorkflowNotFoundError(message, { workflowId, ...(runId ? { runId } : {}), ...withCause(cause) });
}

/** A command for a run that has closed; its status when the engine knows it. */
export function runAlreadyClosed(workflowId: string, runId: string, status?: string, cause?: unknown): FlowgateError {
  const message = `Workflow ${workflowId} run ${runId} is already closed${status ? ` (${status})` : ''}`;
  return new WorkflowClosedError(message, { workflowId, runId, ...withCause(cause) });
}

/** The outcome of a run that is still open. */
export function runStillRunning(workflowId: string, runId: string): FlowgateError {
  return new WorkflowNotCompletedError(`Workflow ${workflowId} run ${runId} is still running`, { workflowId, runId });
}

/** A reset to after a step the run never called. */
export function stepNeverRan(stepName: string, workflowId: string, runId: string): FlowgateError {
  return new StepNotFoundError(`Step "${stepName}" never ran in run ${runId} of workflow ${workflowId}`, { workflowId, runId });
}

/** A reset to after a step the run called but that has not completed. */
export function stepNeverCompleted(stepName: string, workflowId: string, runId: string): FlowgateError {
  return new StepNotCompletedError(`Step "${stepName}" never completed in run ${runId} of workflow ${workflowId}`, { workflowId, runId });
}

const INVALID_PAGE_TOKEN = 'pageToken is invalid or stale';

/** A page token that is forged, garbled, stale or issued for another query. */
export function invalidPageToken(cause?: unknown): FlowgateError {
  return new ValidationError(INVALID_PAGE_TOKEN, {
    issues: [{ code: 'invalid_page_token', path: ['pageToken'], message: INVALID_PAGE_TOKEN }],
    ...withCause(cause),
  });
}

function withCause(cause: unknown): { cause?: unknown } {
  return cause === undefined ? {} : { cause };
}
