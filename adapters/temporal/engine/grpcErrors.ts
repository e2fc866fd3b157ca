/**
 * The one place where Temporal's errors become the core's named errors (docs/architecture.md, The rules). The
 * original error is kept as `cause` for logs; no gRPC code or Temporal message reaches the core.
 */
import { NamespaceNotFoundError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError as TemporalNotFoundError } from '@temporalio/client';
import {
  EngineError,
  EngineUnavailableError,
  FlowgateError,
  invalidPageToken,
  runAlreadyClosed,
  runNotFound,
  ValidationError,
  WorkflowAlreadyStartedError,
  WorkflowClosedError,
} from '../../../core/domain/errors.js';

/** gRPC status codes (a stable standard; spelled out so this file needs no @grpc/grpc-js import). */
export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
} as const;

/** What a failed call was about, so its error can name the execution and be told apart. */
export interface CallContext {
  workflowId?: string;
  runId?: string;
  /** The call carried a client's page token: INVALID_ARGUMENT then means that token is bad. */
  pageToken?: boolean;
  /** The call targets a run that was open a moment ago: "not found … already completed" means it closed meanwhile. */
  closedIfGone?: boolean;
}

export const UNREACHABLE_MESSAGE = 'Temporal is unreachable';
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
const GENERIC_MESSAGE = 'The workflow engine failed to handle the request';
// "WorkflowId length exceeds limit.": the cluster's limit.maxIDLength counts bytes of UTF-8 (1000 by default), so an
// id of 1000 characters the API accepts can still be too long for it: the client's input, not an engine failure.
// RESOURCE_EXHAUSTED (cause BUSY_WORKFLOW) "workflow operation can not be applied because workflow is closing".
const WORKFLOW_CLOSING = /\bworkflow is closing\b/i;
const ID_TOO_LONG = /\bWorkflowId length exceeds limit\b/i;
// INVALID_ARGUMENT "Workflow history size exceeds limit.": a signal to a run whose history passed
// limit.historySize.error, which the server terminates at its next workflow task (docs/api.md).
const HISTORY_TOO_LARGE = /\bWorkflow history size exceeds limit\b/i;
// Errors Node raises for a socket that cannot reach the server, and grpc-js's own name for a broken transport.
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE']);
const MAX_CAUSE_DEPTH = 5;
// grpc-js's own RESOURCE_EXHAUSTED for an answer over the channel's size limit: no retry makes it smaller.
const MESSAGE_TOO_LARGE = /\blarger than max\b/i;
// The server's rate limiters, when one trips inside another read it reports as UNAVAILABLE ("Unable to read search
// attributes types: System Persistence Max QPS Reached.").
const RATE_LIMITED = /\bMax QPS Reached\b|\brate limit exceeded\b/i;
/** NOT_FOUND for the namespace a call named ("Namespace flowgate is not found."). */
const NAMESPACE_NOT_FOUND = /\bNamespace (\S+) is not found\b/;

export function translateError(error: unknown, context: CallContext = {}): FlowgateError {
  if (error instanceof FlowgateError) return error;
  if (error instanceof TemporalNotFoundError) return notFound(error, context);
  if (error instanceof WorkflowExecutionAlreadyStartedError) return alreadyStarted(error, context);
  if (error instanceof NamespaceNotFoundError) {
    return new EngineError(`Temporal namespace "${error.namespace}" does not exist`, { cause: error });
  }
  switch (grpcCodeOf(error)) {
    case GrpcCode.NOT_FOUND: {
      // The raw service's calls get no NamespaceNotFoundError, only its message: the engine is misconfigured, no run is missing.
      const namespace = NAMESPACE_NOT_FOUND.exec(messageChain(error))?.[1];
      if (namespace !== undefined) return new EngineError(`Temporal namespace "${namespace}" does not exist`, { cause: error });
      return notFound(error, context);
    }
    case GrpcCode.ALREADY_EXISTS:
      return alreadyStarted(error, context);
    case GrpcCode.INVALID_ARGUMENT:
      if (context.pageToken) return invalidPageToken(error);
      if (ID_TOO_LONG.test(messageChain(error))) return idTooLong(error, context);
      if (context.closedIfGone && HISTORY_TOO_LARGE.test(messageChain(error))) {
        const { workflowId = '', runId = '' } = context;
        const message = `Workflow ${workflowId} run ${runId} is closing: its history passed the engine's size limit, and the run is terminated`;
        return new WorkflowClosedError(message, { workflowId, runId, cause: error });
      }
      break;
    case GrpcCode.RESOURCE_EXHAUSTED:
      // A signal, cancel or terminate that reaches a run while it completes: to the caller it is closed (a retry
      // finds it so), not an outage.
      if (context.closedIfGone && WORKFLOW_CLOSING.test(messageChain(error))) {
        return runAlreadyClosed(context.workflowId ?? '', context.runId ?? '', undefined, error);
      }
      // Otherwise Temporal's rate limits: the same advice as an outage, come back shortly.
      return unavailable(error);
    case GrpcCode.UNAVAILABLE:
    case GrpcCode.DEADLINE_EXCEEDED:
      return unavailable(error);
    default:
      if (isConnectionError(error)) return unavailable(error);
  }
  return new EngineError(GENERIC_MESSAGE, { cause: error, ...ids(context) });
}

/**
 * Whether Temporal turned the call away under its rate limits before acting on it (RESOURCE_EXHAUSTED, or a rate
 * limiter's UNAVAILABLE), so the same call may be sent again. Not a run that is closing (BUSY_WORKFLOW: a retry finds
 * it closed) or an answer too large for the channel.
 */
export function isThrottled(error: unknown): boolean {
  const code = grpcCodeOf(error);
  if (code === GrpcCode.RESOURCE_EXHAUSTED) {
    const messages = messageChain(error);
    return !WORKFLOW_CLOSING.test(messages) && !MESSAGE_TOO_LARGE.test(messages);
  }
  return code === GrpcCode.UNAVAILABLE && RATE_LIMITED.test(messageChain(error));
}

/** The gRPC status code of the error or of an error in its cause chain (the client wraps them in ServiceError). */
export function grpcCodeOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth += 1) {
    const { code, details, metadata } = current as Error & { code?: unknown; details?: unknown; metadata?: unknown };
    if (typeof code === 'number' && typeof details === 'string' && typeof metadata === 'object') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function idTooLong(error: unknown, context: CallContext): FlowgateError {
  const message = "workflowId is longer than the workflow engine accepts (Temporal's limit.maxIDLength counts bytes of UTF-8, 1000 by default)";
  return new ValidationError(message, {
    issues: [{ code: 'workflow_id_too_long', path: ['workflowId'], message }],
    ...ids(context),
    cause: error,
  });
}

function notFound(error: unknown, context: CallContext): FlowgateError {
  const workflowId = context.workflowId ?? (error as { workflowId?: string }).workflowId ?? '';
  if (context.closedIfGone && /already (completed|closed)/i.test(messageChain(error))) {
    return runAlreadyClosed(workflowId, context.runId ?? '', undefined, error);
  }
  return runNotFound(workflowId, context.runId, error);
}

function alreadyStarted(error: unknown, context: CallContext): FlowgateError {
  const workflowId = context.workflowId ?? (error as { workflowId?: string }).workflowId ?? '';
  return new WorkflowAlreadyStartedError(`Workflow ${workflowId} is already running`, { workflowId, cause: error });
}

function unavailable(error: unknown): FlowgateError {
  return new EngineUnavailableError(UNREACHABLE_MESSAGE, { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS, cause: error });
}

function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (current.name === 'TransportError' || (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Every message and gRPC details string along the cause chain, for recognising a specific server answer. */
export function messageChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth += 1) {
    parts.push(current.message, String((current as { details?: unknown }).details ?? ''));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(' ');
}

function ids(context: CallContext): { workflowId?: string; runId?: string } {
  return { ...(context.workflowId ? { workflowId: context.workflowId } : {}), ...(context.runId ? { runId: context.runId } : {}) };
}
