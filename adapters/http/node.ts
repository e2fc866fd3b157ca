import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createHttpApp, type HttpApp } from './app.js';
import {
  answerRefusal,
  createCheckExpectationHandler,
  createClientErrorHandler,
  DEFAULT_MAX_PIPELINED_REQUESTS,
  hostRefusal,
  PipelineGate,
  PipelineTurns,
} from './nodeConnection.js';
import { BODY_READ_ELSEWHERE } from './body.js';
import type { HttpAppOptions } from './options.js';
import { isStreamedBody, type HttpRequest, type HttpResponse, type RequestHeaders } from './types.js';

/** A `(req, res)` handler, with the node:http server events that answer what never reaches it as a request. */
export interface NodeRequestHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /**
   * For node:http's `clientError`: a request node's parser refused (bad framing 400, headers or URL too large 431,
   * too slow 408, a chunk extension too large 413) is answered with the JSON error body and `X-Request-Id`, and
   * access-logged, instead of node's bare status line.
   */
  clientError(error: Error, socket: Socket): void;
  /** For node:http's `checkExpectation`: an `Expect` other than `100-continue` is 417 `ExpectationFailedError`. */
  checkExpectation(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Listens on the server for `clientError`, `checkExpectation` and `checkContinue`, and turns node's bare Host check off
   * for the handler's own (a request without Host is a JSON 400 too) (`checkContinue` is the handler itself: with it,
   * `Expect: 100-continue` gets `100 Continue` only once the request's headers are accepted, so a request refused by
   * its headers (401, 413 by its declared length, 415) gets that answer instead and never sends its body).
   * `startHttpServer` does this; call it on your own node:http server. (Behind Express, pass the Express app to
   * `checkContinue` instead: the handler knows from the request whether `100 Continue` went out.)
   */
  attachTo(server: Server): void;
}

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
  /**
   * Most requests of one connection answered at once (HTTP/1.1 pipelining). While that many wait for their answers
   * to leave (a client that pipelines and reads nothing), the connection's next requests are not read.
   * @default 8
   */
  maxPipelinedRequests?: number;
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
  const maxPipelinedRequests = transport.maxPipelinedRequests ?? DEFAULT_MAX_PIPELINED_REQUESTS;
  if (!Number.isSafeInteger(maxPipelinedRequests) || maxPipelinedRequests < 1) {
    throw new TypeError(`Invalid HTTP transport options: maxPipelinedRequests must be a positive integer, got ${String(maxPipelinedRequests)}`);
  }
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
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
  const turns = new PipelineTurns();
  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    const refusal = hostRefusal(req);
    if (refusal) return answerRefusal(app, req, res, refusal);
    PipelineGate.of(req.socket, maxPipelinedRequests, turns).admit(res, () => answer(req, res));
  }) as NodeRequestHandler;
  handler.clientError = createClientErrorHandler(app);
  handler.checkExpectation = createCheckExpectationHandler(app);
  handler.attachTo = (server) => {
    // node's own Host check answers a bare 400; the handler makes the same check and answers it as an API error.
    // The `requireHostHeader` option lives on the server, where node reads it for each request.
    (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
    server.on('clientError', handler.clientError);
    server.on('checkExpectation', handler.checkExpectation);
    server.on('checkContinue', handler);
  };
  return handler;
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
  readonly headers: RequestHeaders;
  readonly body: AsyncIterable<Uint8Array>;
  readonly basePath: string | undefined;
  private controller: AbortController | undefined;

  constructor(private readonly req: IncomingMessage & { baseUrl?: string }, private readonly res: ServerResponse, readonly overCapacity: boolean) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    this.headers = withRepeatedAuthorization(req);
    this.body = wasReadElsewhere(req) ? BODY_READ_ELSEWHERE : awaitsContinue(req, res) ? continueThenRead(req, res) : req;
    // Express strips the mount path from `url` and keeps it here.
    this.basePath = req.baseUrl || undefined;
  }

  /** Cheap, unlike `signal`: the connection closed before the answer was handed over. */
  get clientGone(): boolean {
    return !this.res.writableFinished && (this.res.destroyed || this.req.socket.destroyed);
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
  if (request.clientGone) {
    // Client gone before the answer. A stream is still entered once (its signal is aborted, so it ends at once):
    // return() on a generator that never started would skip its clean-up and its access-log line.
    if (isStreamedBody(response.body)) for await (const _chunk of response.body) break;
    return;
  }
  // A body we did not read (an early 401/413/415, a GET with a body) would otherwise be drained byte by byte
  // before the connection could be reused; closing is cheaper and bounds what a client can make us read.
  if (shutdownSignal?.aborted || hasUnreadBody(req)) response.headers['connection'] = 'close';
  if (!isStreamedBody(response.body)) {
    // writeHead fixes the headers before end() sees the body: without a length Node would send it chunked (a writev
    // of framing and body per response, a chunk parser on the client), which cost half the throughput (figure 1).
    // A HEAD answer has no body and keeps the length GET would have, when GET's would have one. A 204 and a 304
    // carry no length of their own (RFC 9110 8.6: a 304's would have to be the 200's).
    if (response.body !== null) response.headers['content-length'] = String(Buffer.byteLength(response.body));
    else if (req.method !== 'HEAD' && response.status !== 204 && response.status !== 304) response.headers['content-length'] ??= '0';
    res.writeHead(response.status, response.headers);
    res.end(response.body ?? undefined);
    return;
  }
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  const endStream = () => request.abort();
  shutdownSignal?.addEventListener('abort', endStream, { once: true });
  try {
    if (shutdownSignal?.aborted) endStream();
    // Each chunk is built once the socket took the last one: a client reading slowly holds one chunk, not its answer.
    for await (const chunk of response.body) {
      if (request.clientGone) break;
      if (!res.write(chunk)) await drainedOrClosed(res, req.socket);
    }
  } finally {
    shutdownSignal?.removeEventListener('abort', endStream);
    // A stream that began before shutdown went out keep-alive: its connection must not linger once the stream ends.
    if (shutdownSignal?.aborted) res.once('finish', () => req.socket.end());
    res.end();
  }
}

/** node's own test of an `Expect` header (lib/_http_server.js). */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * `Expect: 100-continue` and node has not sent `100 Continue` yet (its `checkContinue` event is ours): it is sent
 * when the app first reads the body, after the headers passed every check, so a request refused by its headers
 * (401, 413 by declared length, 415) gets that answer and never sends its body. One rule: the app's own.
 */
function awaitsContinue(req: IncomingMessage, res: ServerResponse): boolean {
  const expect = req.headers.expect;
  return expect !== undefined && CONTINUE_EXPECTATION.test(expect) && (res as ServerResponse & { _sent100?: boolean })._sent100 !== true;
}

async function* continueThenRead(req: IncomingMessage, res: ServerResponse): AsyncGenerator<Uint8Array, void, undefined> {
  res.writeContinue();
  yield* req;
}

/**
 * node keeps the first of repeated `Authorization` headers; two credentials are ambiguous, so both are passed on and
 * the authenticator refuses them (auth.ts). Looked for only when the header is there.
 */
function withRepeatedAuthorization(req: IncomingMessage): RequestHeaders {
  if (req.headers.authorization === undefined) return req.headers;
  const raw = req.rawHeaders;
  const values: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') values.push(raw[index + 1]!);
  }
  return values.length > 1 ? { ...req.headers, authorization: values } : req.headers;
}

/** A body the request declares, read to its end before the handler got it (Express's `express.json()` ahead of it). */
function wasReadElsewhere(req: IncomingMessage): boolean {
  return req.readableEnded && declaresBody(req);
}

function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function hasUnreadBody(req: IncomingMessage): boolean {
  return !req.readableEnded && declaresBody(req);
}

/** A response queued behind others on its connection (pipelining) gets no 'close' of its own: its socket's counts. */
function drainedOrClosed(res: ServerResponse, socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      socket.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    socket.once('close', done);
  });
}
