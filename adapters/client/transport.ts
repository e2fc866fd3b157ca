import { randomUUID } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';
import { FlowgateApiError } from './errors.js';
import type { CallOptions } from './types.js';

/** How the client retries refusals (503, 429) and dropped connections: bounded in count and in time waited. */
export interface RetryPolicy {
  /** Retries of one call at most (default 5). */
  maxRetries?: number;
  /** Most milliseconds one call spends waiting between its attempts (default 30 000); a longer Retry-After is not waited. */
  maxWaitMs?: number;
}

export interface TransportOptions {
  /** The API's root: `http://localhost:3000`, or with the prefix it is mounted under (`https://host/flows`). */
  baseUrl: string | URL;
  /** The server's API_AUTH_TOKEN, sent as `Authorization: Bearer`. */
  token?: string;
  /** An undici dispatcher of your own (a proxy agent, a mock pool, a tuned Agent); the client never closes it. */
  dispatcher?: Dispatcher;
  retry?: RetryPolicy;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
}

export interface Call extends CallOptions {
  method: 'GET' | 'POST' | 'PATCH';
  /** An API path (`/workflow/run`), or a path the server handed out (a `Location`, already carrying the mount). */
  path: string;
  /** True when `path` came from the server and already has the mount prefix. */
  absolutePath?: boolean;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** A retry after a dropped connection cannot do harm: reads, and writes carrying an Idempotency-Key. */
  retrySafe: boolean;
  /** False: a 503 or 429 is the answer, not retried (readiness probes report it). */
  retryRefusals?: boolean;
}

/** A successful answer, parsed. */
export interface Answer<T = unknown> {
  status: number;
  body: T;
  requestId: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * 503s that refuse a request before anything was done, so even a write without a key is retried after them. Another
 * 503 (EngineUnavailableError) may come after the engine acted: only retry-safe calls repeat it.
 */
const REFUSED_BEFORE_ACTING = new Set(['ServerBusyError', 'CatalogNotAvailableError', 'IdempotencyStoreFullError']);
/** Retry-After is in seconds; an answer without one is retried after this long. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;
/** A dropped connection is retried after 100 ms, 200 ms, 400 ms, ... */
const RECONNECT_BASE_MS = 100;

/**
 * The client's HTTP: one keep-alive undici Agent (or the caller's dispatcher), the bearer token, JSON bodies, and
 * the retries (503 and 429 after Retry-After, dropped connections of retry-safe calls), every wait cut short by the
 * call's AbortSignal.
 */
export class Transport {
  readonly baseUrl: URL;
  /** The mount prefix without its trailing slash: `''` or `/flows`. */
  private readonly basePath: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly maxRetries: number;
  private readonly maxWaitMs: number;

  constructor(private readonly options: TransportOptions) {
    const base = new URL(String(options.baseUrl));
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`baseUrl must be an http or https URL, got ${base.href}`);
    this.basePath = base.pathname.replace(/\/+$/, '');
    base.search = '';
    base.hash = '';
    this.baseUrl = base;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 4_000, connections: 32 });
    this.maxRetries = options.retry?.maxRetries ?? 5;
    this.maxWaitMs = options.retry?.maxWaitMs ?? 30_000;
  }

  /** One call, retried as the policy allows; a non-2xx answer is thrown as FlowgateApiError. */
  async json<T>(call: Call): Promise<Answer<T>> {
    return this.withRetries(call, async (response) => {
      const text = await response.body.text();
      const type = String(response.headers['content-type'] ?? '');
      const body = type.includes('json') && text !== '' ? JSON.parse(text) : text;
      return { status: response.statusCode, body: body as T, requestId: header(response, 'x-request-id'), headers: response.headers };
    });
  }

  /** A streaming call (server-sent events): the open 2xx response, its body unread. */
  async stream(call: Call): Promise<Dispatcher.ResponseData> {
    return this.withRetries(call, async (response) => response);
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private async withRetries<R>(call: Call, onSuccess: (response: Dispatcher.ResponseData) => Promise<R>): Promise<R> {
    let waited = 0;
    for (let attempt = 0; ; attempt += 1) {
      call.signal?.throwIfAborted();
      let response: Dispatcher.ResponseData;
      try {
        response = await this.send(call);
      } catch (error) {
        if (call.signal?.aborted) throw call.signal.reason;
        const delay = RECONNECT_BASE_MS * 2 ** attempt;
        if (!call.retrySafe || !isDroppedConnection(error) || attempt >= this.maxRetries || waited + delay > this.maxWaitMs) throw error;
        waited += delay;
        await sleep(delay, call.signal);
        continue;
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return onSuccess(response);
      const failure = await this.failure(response);
      const delay = (failure.retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000;
      if (!this.retriesRefusal(call, failure) || attempt >= this.maxRetries || waited + delay > this.maxWaitMs) throw failure;
      waited += delay;
      await sleep(delay, call.signal);
    }
  }

  private retriesRefusal(call: Call, failure: FlowgateApiError): boolean {
    if (call.retryRefusals === false) return false;
    if (failure.status === 429) return true;
    return failure.status === 503 && (call.retrySafe || REFUSED_BEFORE_ACTING.has(failure.error));
  }

  private async send(call: Call): Promise<Dispatcher.ResponseData> {
    const url = new URL(this.baseUrl.href);
    const target = new URL(call.path, 'http://path.invalid');
    url.pathname = call.absolutePath ? target.pathname : `${this.basePath}${target.pathname}`;
    url.search = target.search;
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...call.headers };
    if (this.options.token !== undefined) headers['authorization'] = `Bearer ${this.options.token}`;
    if (call.requestId !== undefined) headers['x-request-id'] = call.requestId;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    return request(url, { method: call.method, headers, body, dispatcher: this.dispatcher, signal: call.signal ?? null });
  }

  private async failure(response: Dispatcher.ResponseData): Promise<FlowgateApiError> {
    const text = await response.body.text().catch(() => '');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not the API's JSON error (a proxy's page): named by its status.
    }
    const retryAfter = Number(header(response, 'retry-after'));
    return FlowgateApiError.fromAnswer({
      status: response.statusCode,
      body,
      requestId: header(response, 'x-request-id'),
      retryAfter: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      location: header(response, 'location'),
    });
  }
}

export function newIdempotencyKey(): string {
  return randomUUID();
}

function header(response: Dispatcher.ResponseData, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The connection went away before an answer: the request may or may not have reached the server. */
function isDroppedConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'UND_ERR_SOCKET' ||
    code === 'ECONNRESET' ||
    code === 'ECONNREFUSED' ||
    code === 'EPIPE' ||
    code === 'UND_ERR_CLOSED' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT'
  );
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
