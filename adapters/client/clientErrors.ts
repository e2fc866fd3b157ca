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
  /**
   * False when the answer was not flowgate's JSON (a proxy's HTML page, another server at that address, a 200 that
   * is not JSON): `error` is then `HTTP<status>` and the message names the status, the URL and the content type.
   */
  readonly fromApi: boolean;
  /** The request that got the answer: `GET`, and its whole URL. */
  readonly method: string | undefined;
  readonly url: string | undefined;

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
    fromApi?: boolean | undefined;
    method?: string | undefined;
    url?: string | undefined;
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
    this.fromApi = details.fromApi ?? true;
    this.method = details.method;
    this.url = details.url;
  }

  /**
   * An error answer. A body that is not the API's error JSON (a proxy's page) is named by its status, and its message
   * is one line naming the status, the request and the content type, never the page itself (it stays in `body`).
   */
  static fromAnswer(answer: {
    status: number;
    body: unknown;
    requestId: string | undefined;
    retryAfter: number | undefined;
    location: string | undefined;
    request?: AnsweredRequest | undefined;
  }): FlowgateApiError {
    const body = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
    const error = text(body.error);
    const message = text(body.message);
    if (error === undefined || message === undefined) {
      return FlowgateApiError.notFromApi({ ...answer, request: answer.request ?? { method: undefined, url: undefined, contentType: undefined } });
    }
    return new FlowgateApiError({
      error,
      message,
      status: answer.status,
      workflowId: text(body.workflowId),
      runId: text(body.runId),
      issues: Array.isArray(body.issues) ? (body.issues as ValidationIssue[]) : undefined,
      requestId: answer.requestId,
      retryAfter: answer.retryAfter,
      location: answer.location,
      body: answer.body,
      method: answer.request?.method,
      url: answer.request?.url,
    });
  }

  /** An answer that is not flowgate's JSON, whatever its status: `HTTP<status>`, one line naming what came back. */
  static notFromApi(answer: {
    status: number;
    body: unknown;
    requestId: string | undefined;
    retryAfter?: number | undefined;
    location?: string | undefined;
    request: AnsweredRequest;
  }): FlowgateApiError {
    const { method, url, contentType } = answer.request;
    const target = url === undefined ? 'the request' : `${method ?? 'the request to'} ${url}`;
    return new FlowgateApiError({
      error: `HTTP${answer.status}`,
      message: `the answer to ${target} is not the API's JSON (HTTP ${answer.status}, ${contentType ? `content-type ${contentType}` : 'no content-type'})`,
      status: answer.status,
      requestId: answer.requestId,
      retryAfter: answer.retryAfter,
      location: answer.location,
      body: answer.body,
      fromApi: false,
      method,
      url,
    });
  }
}

/** What the client knows of the request an answer came to, for the errors that name it. */
export interface AnsweredRequest {
  method: string | undefined;
  url: string | undefined;
  contentType: string | undefined;
}

/**
 * No answer within the client's `requestTimeoutMs` (beyond what the call asked the server to wait): the server
 * accepted the connection and said nothing, or a stream sent no first byte. Not retried: the request may still be
 * running on the server (a keyed write is safe to send again with the same key).
 */
export class FlowgateTimeoutError extends Error {
  override readonly name = 'FlowgateTimeoutError';
  readonly method: string;
  readonly url: string;
  /** The milliseconds waited for the answer. */
  readonly timeoutMs: number;

  constructor(details: { method: string; url: string; timeoutMs: number }) {
    super(`no answer to ${details.method} ${details.url} within ${formatSeconds(details.timeoutMs)}`);
    this.method = details.method;
    this.url = details.url;
    this.timeoutMs = details.timeoutMs;
  }
}

/** `30 s`, `1.5 s`, `0.25 s`. */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
