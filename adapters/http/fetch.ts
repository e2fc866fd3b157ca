import { createHttpApp, type HttpApp } from './app.js';
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

export function toFetchHandler(app: HttpApp): FetchHandler {
  return async (request) => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // Ends the stream when the consumer cancels the response body, as well as when the runtime aborts the request.
    const cancelled = new AbortController();
    const response = await app.handle({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      body: request.body,
      signal: AbortSignal.any([request.signal, cancelled.signal]),
    });
    for (const name of HOP_BY_HOP_HEADERS) delete response.headers[name];
    const init = { status: response.status, headers: response.headers };
    if (!isStreamedBody(response.body)) return new Response(response.body, init);

    const chunks = response.body[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
      },
      async cancel() {
        cancelled.abort();
        await chunks.return?.();
      },
    });
    return new Response(stream, init);
  };
}
