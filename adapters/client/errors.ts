import type { ValidationIssue } from './types.js';

/**
 * Every answer of the API that is not a success, as one class: the server's error name (`error`, e.g.
 * `WorkflowNotFoundError`), the HTTP status, and what the body and headers tell (docs/api.md). A stream's `error`
 * event is one too, with the status of the stream's answer (200).
 */
export class FlowgateApiError extends Error {
  override readonly name = 'FlowgateApiError';
  /** The server's error name: `ValidationError`, `WorkflowNotFoundError`, `WorkflowExecutionTimedOutError`, ... */
  readonly error: string;
  readonly status: number;
  /** The execution the error concerns, when the server named one. */
  readonly workflowId: string | undefined;
  /** The run a 408 waited on (its result is at `location`). */
  readonly runId: string | undefined;
  /** A `ValidationError`'s issues (zod's format); empty otherwise. */
  readonly issues: readonly ValidationIssue[];
  /** The answer's `X-Request-Id`: the server's logs carry the same id. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;
  /** `Location` of the answer (a 408's pinned result). */
  readonly location: string | undefined;
  /** The error body as the server sent it (`--json` output of a command line, say). */
  readonly body: unknown;

  constructor(details: {
    error: string;
    message: string;
    status: number;
    workflowId?: string | null | undefined;
    runId?: string | undefined;
    issues?: readonly ValidationIssue[] | undefined;
    requestId?: string | undefined;
    retryAfter?: number | undefined;
    location?: string | undefined;
    body?: unknown;
  }) {
    super(`${details.error}: ${details.message}`);
    this.error = details.error;
    this.status = details.status;
    this.workflowId = details.workflowId ?? undefined;
    this.runId = details.runId;
    this.issues = details.issues ?? [];
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
    this.location = details.location;
    this.body = details.body;
  }

  /** An error answer; a body that is not the API's error shape (a proxy's page) is named by its status. */
  static fromAnswer(answer: { status: number; body: unknown; requestId: string | undefined; retryAfter: number | undefined; location: string | undefined }): FlowgateApiError {
    const body = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
    return new FlowgateApiError({
      error: text(body.error) ?? `HTTP${answer.status}`,
      message: text(body.message) ?? (typeof answer.body === 'string' && answer.body ? answer.body.slice(0, 200) : `HTTP status ${answer.status}`),
      status: answer.status,
      workflowId: text(body.workflowId),
      runId: text(body.runId),
      issues: Array.isArray(body.issues) ? (body.issues as ValidationIssue[]) : undefined,
      requestId: answer.requestId,
      retryAfter: answer.retryAfter,
      location: answer.location,
      body: answer.body,
    });
  }
}
