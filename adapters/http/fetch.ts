import { linkSignals } from '../../core/domain/abortSignals.js';
import { createHttpApp, type HttpApp } from './app.js';
import { BODY_READ_ELSEWHERE } from './body.js';
import type { HttpAppOptions } from './options.js';
import { isStreamedBody } from './types.js';

export type FetchHandler = (request: Request) => Promise<Response>;

/** Headers that belong to one HTTP/1.1 connection; a fetch-style runtime manages its own. */
const HOP_BY_HOP_HEADERS = ['connection', 'keep-alive', 'transfer-encoding'];

/**
 * A WHATWG `(Request) => Response` handler (Hono, Deno, Bun, edge runtimes, or node via an adapter). Under a prefix,
 * give `basePath`: requests that still carry it and requests a router stripped (Hono's `mount`) are both answered.
 */
export function createFetchHandler(options: HttpAppOptions): FetchHandler {
  return toFetchHandler(createHttpApp(options));
}

export interface FetchTransportOptions {
  /** Server shutdown: once aborted, streaming responses end at once (an SSE stream never finishes by itself). */
  shutdownSignal?: AbortSignal;
}

export function toFetchHandler(app: HttpApp, transport: FetchTransportOptions = {}): FetchHandler {
  const { shutdownSignal } = transport;
  return async (request) => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // Ends the stream when the consumer cancels the response body, as well as when the runtime aborts the request or
    // the server shuts down; let go of when the answer is over (the shutdown signal lives as long as the server).
    const cancelled = new AbortController();
    const linked = linkSignals(shutdownSignal ? [request.signal, cancelled.signal, shutdownSignal] : [request.signal, cancelled.signal]);
    // Never rejects (HttpApp.handle): the link is let go below, with the answer.
    const response = await app.handle({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      // A body a middleware read (Hono's `c.req.json()`) is refused by name, not read as a locked stream.
      body: request.bodyUsed ? BODY_READ_ELSEWHERE : request.body,
      signal: linked.signal,
    });
    for (const name of HOP_BY_HOP_HEADERS) delete response.headers[name];
    const init = { status: response.status, headers: response.headers };
    if (!isStreamedBody(response.body)) {
      linked.unlink();
      return new Response(response.body, init);
    }

    const chunks = response.body[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) {
          linked.unlink();
          controller.close();
        } else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
      },
      async cancel() {
        cancelled.abort();
        linked.unlink();
        await chunks.return?.();
      },
    });
    return new Response(stream, init);
  };
}
