import {
  CatalogNotAvailableError,
  EngineError,
  EngineUnavailableError,
  TraceStoreUnavailableError,
  FlowgateError,
  ForbiddenError,
  IdempotencyKeyReusedError,
  IdempotencyStoreFullError,
  PayloadTooLargeError,
  ScheduleAlreadyExistsError,
  ScheduleNotFoundError,
  StepNotCompletedError,
  StepNotFoundError,
  TraceNotFoundError,
  UnsupportedWorkflowError,
  ValidationError,
  WorkflowAlreadyStartedError,
  WorkflowClosedError,
  WorkflowExecutionTimedOutError,
  WorkflowNotCompletedError,
  WorkflowNotFoundError,
  type ValidationIssue,
} from '../../core/domain/errors.js';
import { idPathSegment } from '../../core/domain/ids.js';
import {
  BadRequestError,
  BodyAlreadyReadError,
  ClientClosedRequestError,
  ExpectationFailedError,
  GoneError,
  MethodNotAllowedError,
  NotFoundError,
  RequestHeaderFieldsTooLargeError,
  RequestTimeoutError,
  ServerBusyError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './transportErrors.js';

/** How one named error is answered. */
export interface ErrorRule {
  status: number;
  /**
   * Replaces the error's own message. Set for engine failures: their messages come from the engine (addresses,
   * gRPC details) and must not reach clients; the log keeps the original.
   */
  publicMessage?: string;
  /** `Retry-After` seconds when the error carries none. */
  retryAfterSeconds?: number;
  /** A 5xx the server gives on purpose (overload protection): not logged as a fault. */
  expected?: boolean;
  /**
   * The error names a run the client has not seen yet (a run-and-wait that ran out of time): the body carries its
   * `runId` and `Location` points at its pinned result, so no client ever loses its run.
   */
  locatesRun?: boolean;
}

/** Seconds a client should wait before retrying when an engine or worker gives no hint. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** docs/api.md, "Status codes by error name": THE mapping from error name to status. Nothing else picks a status. */
export const ERROR_RULES: Readonly<Record<string, ErrorRule>> = {
  [ValidationError.errorName]: { status: 400 },
  [BadRequestError.errorName]: { status: 400 },
  [UnauthorizedError.errorName]: { status: 401 },
  [ForbiddenError.errorName]: { status: 403 },
  [WorkflowNotFoundError.errorName]: { status: 404 },
  // The catalog is unknown (reason 'unknown'); see errorRuleFor for a catalog without a live worker.
  [CatalogNotAvailableError.errorName]: { status: 404 },
  [NotFoundError.errorName]: { status: 404 },
  [StepNotFoundError.errorName]: { status: 404 },
  [TraceNotFoundError.errorName]: { status: 404 },
  [ScheduleNotFoundError.errorName]: { status: 404 },
  [MethodNotAllowedError.errorName]: { status: 405 },
  [WorkflowExecutionTimedOutError.errorName]: { status: 408, locatesRun: true },
  [RequestTimeoutError.errorName]: { status: 408 },
  [WorkflowAlreadyStartedError.errorName]: { status: 409 },
  [ScheduleAlreadyExistsError.errorName]: { status: 409 },
  [StepNotCompletedError.errorName]: { status: 409 },
  [WorkflowClosedError.errorName]: { status: 409 },
  [IdempotencyKeyReusedError.errorName]: { status: 409 },
  [GoneError.errorName]: { status: 410 },
  [PayloadTooLargeError.errorName]: { status: 413 },
  [UnsupportedMediaTypeError.errorName]: { status: 415 },
  [ExpectationFailedError.errorName]: { status: 417 },
  [UnsupportedWorkflowError.errorName]: { status: 424 },
  [WorkflowNotCompletedError.errorName]: { status: 424 },
  [RequestHeaderFieldsTooLargeError.errorName]: { status: 431 },
  // Never sent (the client is gone): the status is what the access log records.
  [ClientClosedRequestError.errorName]: { status: 499 },
  [EngineError.errorName]: { status: 500, publicMessage: 'The workflow engine failed to handle the request.' },
  [BodyAlreadyReadError.errorName]: { status: 500 },
  [EngineUnavailableError.errorName]: {
    status: 503,
    publicMessage: 'The workflow engine is temporarily unavailable; retry later.',
    retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
  },
  // A protective refusal, not a fault: no error log per refused request (the access log has each one).
  [ServerBusyError.errorName]: { status: 503, retryAfterSeconds: 1, expected: true },
  // The same kind of refusal; its Retry-After (when the oldest key expires) comes with the error.
  [IdempotencyStoreFullError.errorName]: { status: 503, retryAfterSeconds: 1, expected: true },
  [TraceStoreUnavailableError.errorName]: {
    status: 503,
    publicMessage: 'The remote trace store is unreachable right now; retry later.',
    retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
  },
};

/** A known catalog whose worker is not running yet (or any more): come back shortly. */
const CATALOG_WITHOUT_WORKER_RULE: ErrorRule = { status: 503, retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS };
const INTERNAL_ERROR_NAME = 'InternalError';
const UNKNOWN_ERROR_RULE: ErrorRule = { status: 500, publicMessage: 'Internal server error.' };

export function errorRuleFor(error: FlowgateError): ErrorRule {
  if (error instanceof CatalogNotAvailableError && error.reason === 'noLiveWorker') return CATALOG_WITHOUT_WORKER_RULE;
  return ERROR_RULES[error.name] ?? UNKNOWN_ERROR_RULE;
}

export interface ErrorBody {
  error: string;
  message: string;
  workflowId?: string;
  runId?: string;
  issues?: readonly ValidationIssue[];
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
  /** 5xx: the caller logs the error with its cause chain and the request id. */
  serverFault: boolean;
}

/** Turns anything thrown into the status, headers and body a client sees. Pure: logging is the caller's job. */
export function answerError(error: unknown): ErrorAnswer {
  // Only the core's named errors are trusted to carry client-safe messages; anything else is an internal fault.
  const known = error instanceof FlowgateError ? error : undefined;
  const rule = known ? errorRuleFor(known) : UNKNOWN_ERROR_RULE;
  const body: ErrorBody = {
    error: known && ERROR_RULES[known.name] ? known.name : INTERNAL_ERROR_NAME,
    message: rule.publicMessage ?? known?.message ?? UNKNOWN_ERROR_RULE.publicMessage!,
  };
  if (known?.workflowId !== undefined) body.workflowId = known.workflowId;
  if (body.error === ValidationError.errorName) body.issues = known?.issues ?? [];
  const headers: Record<string, string> = {};
  if (rule.locatesRun && known?.workflowId !== undefined && known.runId !== undefined) {
    body.runId = known.runId;
    headers['location'] = `/workflow/${idPathSegment(known.workflowId)}/runs/${idPathSegment(known.runId)}/result`;
  }
  // A 503 always says when to come back; another status only when the error itself knows (a long-poll's 424).
  const retryAfter = rule.status === 503 ? (known?.retryAfterSeconds ?? rule.retryAfterSeconds) : known?.retryAfterSeconds;
  if (retryAfter !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfter)));
  if (rule.status === 401) headers['www-authenticate'] = 'Bearer';
  return { status: rule.status, headers, body, serverFault: rule.status >= 500 && rule.expected !== true };
}

export interface CauseLevel {
  name: string;
  message: string;
  stack?: string;
  [field: string]: unknown;
}

const MAX_CAUSE_DEPTH = 10;

/** The whole cause chain for the log (stacks included: the log is for operators, never for clients). */
export function causeChain(error: unknown): CauseLevel[] {
  const chain: CauseLevel[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < MAX_CAUSE_DEPTH && !seen.has(current)) {
    seen.add(current);
    if (current instanceof Error) {
      const level: CauseLevel = { name: current.name, message: current.message };
      if (current.stack) level.stack = current.stack;
      if (current instanceof FlowgateError) {
        if (current.workflowId !== undefined) level.workflowId = current.workflowId;
        if (current.runId !== undefined) level.runId = current.runId;
      }
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string' || typeof code === 'number') level.code = code;
      chain.push(level);
      current = current.cause;
    } else {
      chain.push({ name: typeof current, message: safeString(current) });
      break;
    }
  }
  return chain;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
