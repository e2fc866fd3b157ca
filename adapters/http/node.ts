import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createHttpApp, type HttpApp } from './app.js';
import type { HttpAppOptions } from './options.js';
import type { HttpRequest, HttpResponse } from './types.js';

export type NodeRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface NodeTransportOptions {
  /**
   * Server shutdown: once aborted, streaming responses end at once (an SSE stream never finishes by itself and
   * would hold the server open until the grace period), and new responses carry `Connection: close`.
   */
  shutdownSignal?: AbortSignal;
  /**
   * Whether a request's connection is beyond the server's connection cap (server.ts): such a request is answered
   * 503 (probes excepted) and its connection closed after the answer.
   */
  isOverCapacity?: (socket: Socket) => boolean;
}

/**
 * A `(req, res)` handler for node:http, or mounted in Express 5 with `app.use('/api', handler)` (mount it before
 * any body parser: it reads the request stream itself). Behind a framework that passes the whole URL (Fastify, a
 * plain node server routing a prefix to it), give `basePath`.
 */
export function createNodeHandler(options: HttpAppOptions, transport: NodeTransportOptions = {}): NodeRequestHandler {
  return toNodeHandler(createHttpApp(options), transport);
}

export function toNodeHandler(app: HttpApp, transport: NodeTransportOptions = {}): NodeRequestHandler {
  const { shutdownSignal, isOverCapacity } = transport;
  return (req, res) => {
    const request = new NodeRequest(req, res, isOverCapacity?.(req.socket) === true);
    app
      .handle(request)
      .then((response) => {
        if (request.overCapacity) response.headers['connection'] = 'close';
        return send(req, res, response, request, shutdownSignal);
      })
      .catch((error: unknown) => {
        app.logger.error('failed to write response', { error: error instanceof Error ? error.message : String(error) });
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ error: 'InternalError', message: 'Internal server error.' }));
        } else {
          res.destroy();
        }
      });
  };
}

/**
 * One request as the app sees it. A class, not a literal with a getter: one shape for every request on the hot path.
 * The "client went away" signal is made only when something asks for it: an AbortController per request, its
 * listener and the DOMException of its abort cost a plain JSON exchange a tenth of its throughput (bench figure 1).
 * It aborts when the connection closes before the response finished, or when a stream must end (shutdown).
 */
class NodeRequest implements HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: IncomingMessage;
  readonly basePath: string | undefined;
  private controller: AbortController | undefined;

  constructor(req: IncomingMessage & { baseUrl?: string }, private readonly res: ServerResponse, readonly overCapacity: boolean) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    this.headers = req.headers;
    this.body = req;
    // Express strips the mount path from `url` and keeps it here.
    this.basePath = req.baseUrl || undefined;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      if (this.res.closed) controller.abort();
      else this.res.once('close', () => { if (!this.res.writableFinished) controller.abort(); });
    }
    return this.controller.signal;
  }

  /** Ends a stream that is being sent (shutdown). */
  abort(): void {
    if (!this.signal.aborted) this.controller!.abort();
  }
}

async function send(
  req: IncomingMessage,
  res: ServerResponse,
  response: HttpResponse,
  request: NodeRequest,
  shutdownSignal: AbortSignal | undefined,
): Promise<void> {
  if (res.destroyed) {
    // Client gone before the answer. A stream is still entered once (its signal is aborted, so it ends at once):
    // return() on a generator that never started would skip its clean-up and its access-log line.
    if (response.body !== null && typeof response.body !== 'string') for await (const _chunk of response.body) break;
    return;
  }
  // A body we did not read (an early 401/413/415, a GET with a body) would otherwise be drained byte by byte
  // before the connection could be reused; closing is cheaper and bounds what a client can make us read.
  if (shutdownSignal?.aborted || hasUnreadBody(req)) response.headers['connection'] = 'close';
  if (response.body === null || typeof response.body === 'string') {
    // writeHead fixes the headers before end() sees the body: without a length Node would send it chunked (a writev
    // of framing and body per response, a chunk parser on the client), which cost half the throughput (figure 1).
    response.headers['content-length'] = String(response.body === null ? 0 : Buffer.byteLength(response.body));
    res.writeHead(response.status, response.headers);
    if (response.body === null || response.body.length <= LARGE_BODY_SLICE) {
      res.end(response.body ?? undefined);
      return;
    }
    await writeInSlices(res, response.body);
    return;
  }
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  const endStream = () => request.abort();
  shutdownSignal?.addEventListener('abort', endStream, { once: true });
  try {
    if (shutdownSignal?.aborted) endStream();
    for await (const chunk of response.body) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
  } finally {
    shutdownSignal?.removeEventListener('abort', endStream);
    // A stream that began before shutdown went out keep-alive: its connection must not linger once the stream ends.
    if (shutdownSignal?.aborted) res.once('finish', () => req.socket.end());
    res.end();
  }
}

/**
 * A body this long goes out a slice at a time: `end(body)` would encode all of it into one Buffer next to the string,
 * and a 30 MiB result then cost the process three times its size at once (bench figure 6).
 */
const LARGE_BODY_SLICE = 1024 * 1024;

async function writeInSlices(res: ServerResponse, body: string): Promise<void> {
  for (let start = 0; start < body.length && !res.destroyed; ) {
    let end = Math.min(start + LARGE_BODY_SLICE, body.length);
    // Never split a surrogate pair: each half alone would be encoded as U+FFFD.
    if (end < body.length && isHighSurrogate(body.charCodeAt(end - 1))) end += 1;
    const flushed = res.write(body.slice(start, end));
    start = end;
    if (!flushed && start < body.length) await drainedOrClosed(res);
  }
  res.end();
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.readableEnded) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
