import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { redactUrl } from '../../core/domain/urlRedaction.js';

export interface HttpRequestEvent {
  /** A fresh `crypto.randomUUID()` per event (two observers of one request get two different ids). */
  requestId: string;
  /** Upper case (fetch only normalises the standard methods; `patch` reaches undici as written). */
  method: string;
  /** `origin + path` as undici sends it, through `redactUrl`. */
  url: string;
  /** The final status; `undefined` when no response arrived. */
  status: number | undefined;
  /** From undici's request creation to the final response headers, or to the error. */
  durationMs: number;
  /** success: 2xx–3xx; failure: any other status (4xx, 5xx, and a final 1xx such as 101); error: no response. */
  outcome: 'success' | 'failure' | 'error';
}

export interface ObserveHttpRequestsOptions<C> {
  /** Called synchronously when undici creates a request, in the caller's async context (e.g. `() => als.getStore()`). */
  currentContext(): C | undefined;
  onRequest(event: HttpRequestEvent, context: C): void;
  /** Receives whatever `currentContext`, `onRequest` or `now` throw; errors it throws itself are dropped. */
  onListenerError?(error: unknown): void;
  /** Default `performance.now()`. */
  now?: () => number;
}

const CREATE = 'undici:request:create';
const HEADERS = 'undici:request:headers';
const ERROR = 'undici:request:error';

interface Pending<C> {
  context: C;
  requestId: string;
  method: string;
  url: string;
  startedAt: number;
}

/**
 * `http:request` events from undici's diagnostics channels, with no patching of fetch or undici. Node's global fetch
 * (the undici bundled in Node) and the `undici` package both publish on these channels, which are process-wide by
 * name, so one subscription sees both.
 *
 * - `undici:request:create` fires synchronously inside the caller's `fetch()`/`request()` call chain, so the
 *   caller's AsyncLocalStorage store is active there: the context is captured then, and kept in a WeakMap keyed by
 *   undici's request object (a request that never finishes is simply collected).
 * - `undici:request:headers` ends the request with its status. Informational responses (1xx other than 101, e.g. 103
 *   Early Hints) are followed by the final response on the same request and are skipped; 101 (upgrade) is final.
 * - `undici:request:error` ends a request that got no response (connection refused, socket closed, abort, timeout).
 *   undici may publish it more than once for one request, and also after the headers (a body error): only the first
 *   end of a request produces an event.
 *
 * Only requests that reach undici's connection layer are seen: one event per HTTP exchange, so a followed redirect
 * gives one event per hop, and a fetch rejected before dispatch (bad port, aborted signal, invalid URL) gives none.
 * Nothing here throws into the publisher: Node rethrows a subscriber's exception as an uncaught exception.
 */
export function observeHttpRequests<C>(options: ObserveHttpRequestsOptions<C>): () => void {
  const now = options.now ?? (() => performance.now());
  const pending = new WeakMap<object, Pending<C>>();
  let active = true;

  const listenerError = (error: unknown): void => {
    try {
      options.onListenerError?.(error);
    } catch {
      // The error reporter failed too: nothing may reach the HTTP call path.
    }
  };

  const finish = (request: object, status: number | undefined): void => {
    const entry = pending.get(request);
    if (!entry) return;
    pending.delete(request);
    const event: HttpRequestEvent = {
      requestId: entry.requestId,
      method: entry.method,
      url: entry.url,
      status,
      durationMs: Math.max(0, now() - entry.startedAt),
      outcome: outcomeOf(status),
    };
    options.onRequest(event, entry.context);
  };

  const onCreate = (message: unknown): void => {
    try {
      const request = requestOf(message);
      if (!active || !request) return;
      const context = options.currentContext();
      if (context === undefined) return;
      pending.set(request, {
        context,
        requestId: randomUUID(),
        method: typeof request.method === 'string' ? request.method.toUpperCase() : 'GET',
        url: redactUrl(urlOf(request)),
        startedAt: now(),
      });
    } catch (error) {
      listenerError(error);
    }
  };

  const onHeaders = (message: unknown): void => {
    try {
      const request = requestOf(message);
      if (!request || !pending.has(request)) return;
      const statusCode = (message as { response?: { statusCode?: unknown } }).response?.statusCode;
      const status = typeof statusCode === 'number' && Number.isInteger(statusCode) ? statusCode : undefined;
      if (status !== undefined && status >= 100 && status < 200 && status !== 101) return;
      finish(request, status);
    } catch (error) {
      listenerError(error);
    }
  };

  const onError = (message: unknown): void => {
    try {
      const request = requestOf(message);
      if (request) finish(request, undefined);
    } catch (error) {
      listenerError(error);
    }
  };

  subscribe(CREATE, onCreate);
  subscribe(HEADERS, onHeaders);
  subscribe(ERROR, onError);
  return () => {
    if (!active) return;
    active = false;
    unsubscribe(CREATE, onCreate);
    unsubscribe(HEADERS, onHeaders);
    unsubscribe(ERROR, onError);
  };
}

interface UndiciRequest {
  origin?: unknown;
  path?: unknown;
  method?: unknown;
}

function requestOf(message: unknown): (object & UndiciRequest) | undefined {
  const request = typeof message === 'object' && message !== null ? (message as { request?: unknown }).request : undefined;
  return typeof request === 'object' && request !== null ? request : undefined;
}

function outcomeOf(status: number | undefined): HttpRequestEvent['outcome'] {
  if (status === undefined) return 'error';
  return status >= 200 && status < 400 ? 'success' : 'failure';
}

/** undici's `origin` (`http://host:port`) and `path` (`/p?q`); a path that is already absolute (a request forwarded
 * through an HTTP proxy) is the URL itself; a CONNECT's authority-form path is not a URL path, so only the origin. */
function urlOf(request: UndiciRequest): string {
  const origin = typeof request.origin === 'string' ? request.origin : String(request.origin ?? '');
  const path = typeof request.path === 'string' ? request.path : '';
  if (/^https?:\/\//i.test(path)) return path;
  if (path.startsWith('/')) return `${origin.replace(/\/+$/, '')}${path}`;
  return origin;
}
