import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { redactUrl } from './urlRedaction.js';

export interface HttpRequestEvent {
  requestId: string;
  method: string;
  url: string;
  status: number | undefined;
  durationMs: number;
  outcome: 'success' | 'failure' | 'error';
}

interface UndiciRequest {
  origin?: unknown;
  path?: unknown;
  method?: unknown;
}

interface Pending<C> {
  context: C;
  requestId: string;
  method: string;
  url: string;
  startedAt: number;
}

/**
 * `http:request` events from undici's diagnostics channels (global fetch is undici, and so is the undici package):
 * no patching of fetch. The caller's context is captured when the request is created, where the caller's
 * AsyncLocalStorage store is still active, and kept in a WeakMap keyed by undici's request object.
 */
export function observeHttpRequests<C>(options: {
  currentContext(): C | undefined;
  onRequest(event: HttpRequestEvent, context: C): void;
  onListenerError?(error: unknown): void;
  now?: () => number;
}): () => void {
  const now = options.now ?? (() => performance.now());
  const pending = new WeakMap<object, Pending<C>>();
  const report = (request: object, status: number | undefined): void => {
    const entry = pending.get(request);
    if (!entry) return;
    pending.delete(request);
    const outcome = status === undefined ? 'error' : status >= 200 && status < 400 ? 'success' : 'failure';
    try {
      options.onRequest(
        { requestId: entry.requestId, method: entry.method, url: entry.url, status, durationMs: Math.max(0, now() - entry.startedAt), outcome },
        entry.context,
      );
    } catch (error) {
      options.onListenerError?.(error);
    }
  };
  const onCreate = (message: unknown): void => {
    const request = (message as { request?: UndiciRequest }).request;
    if (!request) return;
    const context = options.currentContext();
    if (context === undefined) return;
    const method = typeof request.method === 'string' ? request.method.toUpperCase() : 'GET';
    pending.set(request, { context, requestId: randomUUID(), method, url: redactUrl(`${String(request.origin ?? '')}${String(request.path ?? '')}`), startedAt: now() });
  };
  const onHeaders = (message: unknown): void => {
    const { request, response } = message as { request?: object; response?: { statusCode?: unknown } };
    if (request) report(request, typeof response?.statusCode === 'number' ? response.statusCode : undefined);
  };
  const onError = (message: unknown): void => {
    const { request } = message as { request?: object };
    if (request) report(request, undefined);
  };
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:headers', onHeaders);
  subscribe('undici:request:error', onError);
  return () => {
    unsubscribe('undici:request:create', onCreate);
    unsubscribe('undici:request:headers', onHeaders);
    unsubscribe('undici:request:error', onError);
  };
}
