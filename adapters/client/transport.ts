import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip } from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';
import { linkSignals, type LinkedSignal } from '../../core/domain/abortSignals.js';
import { FlowgateApiError, FlowgateTimeoutError, type AnsweredRequest } from './clientErrors.js';
import type { CallOptions } from './types.js';

/** How the client retries refusals (503, 429) and dropped connections: bounded in count and in time waited. */
export interface RetryPolicy {
  /** Retries of one call at most (default 5). */
  maxRetries?: number | undefined;
  /** Most milliseconds one call spends waiting between its attempts (default 30 000); a longer Retry-After is not waited. */
  maxWaitMs?: number | undefined;
}

export interface TransportOptions {
  /** The API's root: `http://localhost:3000`, or with the prefix it is mounted under (`https://host/flows`). */
  baseUrl: string | URL;
  /** The server's API_AUTH_TOKEN, sent as `Authorization: Bearer`; none when undefined. */
  token?: string | undefined;
  /** An undici dispatcher of your own (a proxy agent, a mock pool, a tuned Agent); the client never closes it. */
  dispatcher?: Dispatcher | undefined;
  retry?: RetryPolicy | undefined;
  /**
   * Milliseconds one attempt waits for its whole answer before it throws FlowgateTimeoutError (default 30 000),
   * counted beyond the time the call asks the server to wait (a long-poll's `wait`, `run`'s `timeout`); a history
   * stream: for its first byte only. `Infinity` waits as long as it takes.
   */
  requestTimeoutMs?: number | undefined;
  /** Headers sent with every call. */
  headers?: Record<string, string> | undefined;
}

export interface Call extends CallOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
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
  /** Seconds the call asks the server to hold it (a long-poll's `wait`): its answer is awaited that much longer. */
  serverWaitSeconds?: number;
}

/** Where a call goes: the origin, the path and query as sent, and the whole URL for messages. */
interface Target {
  origin: string;
  path: string;
  href: string;
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
/** A bearer token an Authorization header can carry as it is: printable ASCII, no space (the API compares it whole). */
export function isSendableToken(token: string): boolean {
  return /^[\x21-\x7e]+$/.test(token);
}

/** How long an attempt waits for its answer unless the client was given `requestTimeoutMs`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** setTimeout's longest delay; a longer timeout is no timeout. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

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
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: TransportOptions) {
    const base = new URL(String(options.baseUrl));
    // Never sent (the API takes a token), and it would show in every error message that names a URL.
    if (base.username !== '' || base.password !== '') {
      throw new TypeError('baseUrl must not carry a user name or password; give the API token as the token option');
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`baseUrl must be an http or https URL, got ${base.href}`);
    // Said without the token; sent, undici would refuse the header as if the connection had failed.
    if (options.token !== undefined && !isSendableToken(options.token)) throw new TypeError('token must be printable ASCII without spaces or line breaks');
    this.basePath = base.pathname.replace(/\/+$/, '');
    base.search = '';
    base.hash = '';
    this.baseUrl = base;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 4_000, connections: 32 });
    this.maxRetries = options.retry?.maxRetries ?? 5;
    this.maxWaitMs = options.retry?.maxWaitMs ?? 30_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    if (!(this.requestTimeoutMs > 0)) throw new TypeError(`requestTimeoutMs must be a positive number of milliseconds (Infinity for none), got ${this.requestTimeoutMs}`);
  }

  /**
   * One call, retried as the policy allows; a non-2xx answer is thrown as FlowgateApiError, and so is a 2xx answer
   * that is not JSON (`fromApi: false`).
   */
  async json<T>(call: Call): Promise<Answer<T>> {
    return this.withRetries(call, 'answer', async (response, request) => {
      const text = await bodyText(response);
      // 204 (a delete) has no body to be JSON.
      if (response.statusCode === 204) return { status: 204, body: undefined as T, requestId: header(response, 'x-request-id'), headers: response.headers };
      const body = jsonBody(text, request.contentType);
      if (body === NOT_JSON) throw FlowgateApiError.notFromApi({ status: response.statusCode, body: text, requestId: header(response, 'x-request-id'), request });
      return { status: response.statusCode, body: body as T, requestId: header(response, 'x-request-id'), headers: response.headers };
    });
  }

  /**
   * A streaming call (server-sent events): the open 2xx response, its body unread. Only its first byte is awaited
   * under the timeout; the stream itself may last as long as the run.
   */
  async stream(call: Call): Promise<{ response: Dispatcher.ResponseData; request: AnsweredRequest }> {
    return this.withRetries(call, 'first byte', async (response, request) => ({ response, request }));
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /**
   * The attempts of one call. Each has its own deadline (the timeout plus the call's server wait) over the request
   * and `onSuccess` (`answer`), or only until the response's headers (`first byte`); past it, FlowgateTimeoutError.
   */
  private async withRetries<R>(call: Call, awaited: 'answer' | 'first byte', onSuccess: (response: Dispatcher.ResponseData, request: AnsweredRequest) => Promise<R>): Promise<R> {
    let waited = 0;
    const target = this.target(call);
    for (let attempt = 0; ; attempt += 1) {
      call.signal?.throwIfAborted();
      const deadline = new AttemptDeadline(this.requestTimeoutMs + (call.serverWaitSeconds ?? 0) * 1000, call.signal);
      const timedOut = () => new FlowgateTimeoutError({ method: call.method, url: target.href, timeoutMs: deadline.ms });
      let response: Dispatcher.ResponseData;
      try {
        response = await this.send(call, target, deadline.signal, awaited === 'answer');
      } catch (error) {
        deadline.end();
        if (call.signal?.aborted) throw call.signal.reason;
        if (deadline.expired) throw timedOut();
        const delay = RECONNECT_BASE_MS * 2 ** attempt;
        if (!call.retrySafe || !isDroppedConnection(error) || attempt >= this.maxRetries || waited + delay > this.maxWaitMs) throw error;
        waited += delay;
        await sleep(delay, call.signal);
        continue;
      }
      const request: AnsweredRequest = { method: call.method, url: target.href, contentType: header(response, 'content-type') };
      let failure: FlowgateApiError;
      try {
        if (response.statusCode >= 200 && response.statusCode < 300) {
          if (awaited === 'first byte') {
            deadline.clear();
            // The caller's signal still ends the stream, until the stream ends.
            response.body.once('close', () => deadline.end());
          }
          return await onSuccess(response, request);
        }
        failure = await this.failure(response, request);
      } catch (error) {
        deadline.end();
        if (call.signal?.aborted) throw call.signal.reason;
        if (deadline.expired) throw timedOut();
        throw error;
      } finally {
        if (awaited === 'answer') deadline.end();
      }
      deadline.end();
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

  /**
   * Where the call goes: the base, the mount prefix (unless the path came from the server), the path and the query.
   * The path is sent as the client wrote it: read as a URL, a workflow id `.` or `..` (written `%2E`, `%2E%2E`) would
   * be a dot segment and vanish from it.
   */
  private target(call: Call): Target {
    // A Location may be a whole URL: its path and query, as written.
    const written = call.absolutePath ? call.path.replace(/^(?:[a-z][a-z\d+.-]*:)?\/\/[^/?#]*/i, '').replace(/#.*$/s, '') : call.path;
    const queryAt = written.indexOf('?');
    const path = `${call.absolutePath ? '' : this.basePath}${queryAt === -1 ? written : written.slice(0, queryAt)}`;
    let query = queryAt === -1 ? '' : written.slice(queryAt + 1);
    const added = Object.entries(call.query ?? {}).filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined);
    if (added.length > 0) {
      const search = new URLSearchParams(query);
      for (const [name, value] of added) search.set(name, String(value));
      query = search.toString();
    }
    const pathAndQuery = query === '' ? path : `${path}?${query}`;
    return { origin: this.baseUrl.origin, path: pathAndQuery, href: `${this.baseUrl.origin}${pathAndQuery}` };
  }

  /**
   * `compressed`: the answer is read whole, so it may come compressed (bodyText decodes it). A stream is asked for
   * without: its events must not wait in a compressor.
   */
  private async send(call: Call, target: Target, signal: AbortSignal, compressed: boolean): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(compressed ? { 'accept-encoding': ACCEPTED_CODINGS } : {}),
    };
    // Header names are case-insensitive: a caller's `Accept-Encoding` replaces the client's `accept-encoding`.
    for (const extra of [this.options.headers, call.headers]) {
      for (const name in extra) headers[name.toLowerCase()] = extra[name]!;
    }
    if (this.options.token !== undefined) headers['authorization'] = `Bearer ${this.options.token}`;
    if (call.requestId !== undefined) headers['x-request-id'] = call.requestId;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    // The attempt's deadline governs how long the headers may take (undici's own 300 s would cut a longer long-poll).
    return this.dispatcher.request({ origin: target.origin, path: target.path, method: call.method, headers, body, signal, headersTimeout: 0 });
  }

  private async failure(response: Dispatcher.ResponseData, request: AnsweredRequest): Promise<FlowgateApiError> {
    // A body cut short still leaves the status to go by.
    const text = await bodyText(response).catch(() => '');
    const body = jsonBody(text, request.contentType);
    const retryAfter = Number(header(response, 'retry-after'));
    return FlowgateApiError.fromAnswer({
      status: response.statusCode,
      body: body === NOT_JSON ? text : body,
      requestId: header(response, 'x-request-id'),
      retryAfter: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      location: header(response, 'location'),
      request,
    });
  }
}

/**
 * The deadline of one attempt: a signal that aborts when `ms` have passed (or when the caller's signal aborts), and
 * whether it was the time that ran out. Cleared, the time no longer runs (the caller's signal still aborts).
 */
class AttemptDeadline {
  readonly signal: AbortSignal;
  expired = false;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly caller: LinkedSignal | undefined;

  constructor(
    readonly ms: number,
    callerSignal: AbortSignal | undefined,
  ) {
    // An application's signal may outlive thousands of calls: each attempt links to it and lets go when it ends.
    this.caller = callerSignal ? linkSignals([callerSignal, this.controller.signal]) : undefined;
    this.signal = this.caller?.signal ?? this.controller.signal;
    if (ms <= LONGEST_TIMER_MS) {
      this.timer = setTimeout(() => {
        this.expired = true;
        this.controller.abort(new Error(`no answer within ${ms} ms`));
      }, ms);
    }
  }

  /** The time no longer runs; the caller's signal still aborts the attempt (a stream it reads). */
  clear(): void {
    clearTimeout(this.timer);
  }

  /** The attempt is over: neither the time nor the caller's signal reaches it any more. */
  end(): void {
    this.clear();
    this.caller?.unlink();
  }
}

const NOT_JSON = Symbol('not JSON');

/** The codings the client decodes: the server compresses large answers in one of them (docs/api.md, Compression). */
const ACCEPTED_CODINGS = 'br, gzip';
const DECODERS: ReadonlyMap<string, (compressed: Buffer) => Promise<Buffer>> = new Map([
  ['br', promisify(brotliDecompress)],
  ['gzip', promisify(gunzip)],
  ['x-gzip', promisify(gunzip)],
]);

/**
 * The answer's text, decoded from its `Content-Encoding`. Decoded whole (the JSON is parsed whole anyway), in the
 * thread pool. A coding the client did not ask for is left as it is: the answer is then not JSON, and says so.
 */
async function bodyText(response: Dispatcher.ResponseData): Promise<string> {
  const coding = header(response, 'content-encoding')?.trim().toLowerCase();
  const decode = coding === undefined ? undefined : DECODERS.get(coding);
  if (!decode) return response.body.text();
  return (await decode(Buffer.from(await response.body.arrayBuffer()))).toString('utf8');
}

/** The parsed body when the answer says it is JSON and is; NOT_JSON otherwise. */
function jsonBody(text: string, contentType: string | undefined): unknown {
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType?.trim() ?? '')) return NOT_JSON;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
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
