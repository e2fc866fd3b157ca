import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PayloadTooLargeError } from '../../core/domain/errors.js';
import type { HttpApp } from './app.js';
import { BadRequestError, ExpectationFailedError, RequestHeaderFieldsTooLargeError, RequestTimeoutError } from './transportErrors.js';

/*
 * What node:http does per connection, below the requests the app sees: pipelined requests waiting their turn, and
 * the refusals node's parser makes before there is a request at all. Used by node.ts.
 */

/** Requests of one connection answered at once, unless told otherwise (HTTP/1.1 pipelining). */
export const DEFAULT_MAX_PIPELINED_REQUESTS = 8;

const GATE = Symbol('flowgate.pipelineGate');
const GATE_OF_RESPONSE = Symbol('flowgate.pipelineGateOfResponse');

type GatedSocket = Socket & { [GATE]?: PipelineGate };
type GatedResponse = ServerResponse & { [GATE_OF_RESPONSE]?: PipelineGate };

/**
 * node:http parses every request a client pipelines and hands each over at once, although their answers leave one
 * after the other: 300 pipelined requests, never read, were 300 answers built. A connection's gate lets at most
 * `limit` of its requests be answered at once (answered = until the answer is handed to the socket, so answers a
 * client does not read keep their places), holds the next ones back, and stops reading the connection while any
 * wait. Held-back requests go on in the background (PipelineTurns). Those still waiting when the client is gone are
 * let through at once, to be answered 499 without being built.
 */
export class PipelineGate {
  private answering = 0;
  private readonly waiting: (() => void)[] = [];
  private paused = false;
  private closed = false;
  /** In the turns' queue already. */
  queued = false;

  static of(socket: Socket, limit: number, turns: PipelineTurns): PipelineGate {
    const gated = socket as GatedSocket;
    return (gated[GATE] ??= new PipelineGate(socket, limit, turns));
  }

  private constructor(
    private readonly socket: Socket,
    private readonly limit: number,
    private readonly turns: PipelineTurns,
  ) {
    socket.once('close', () => {
      this.closed = true;
      while (this.waiting.length > 0) this.waiting.shift()!();
    });
  }

  /** Runs `answer` now, or once fewer than `limit` earlier requests of this connection are being answered. */
  admit(res: ServerResponse, answer: () => void): void {
    if (this.closed || (this.answering < this.limit && this.waiting.length === 0)) {
      this.begin(res, answer);
      return;
    }
    this.waiting.push(() => this.begin(res, answer));
    this.pause();
  }

  private begin(res: ServerResponse, answer: () => void): void {
    this.answering += 1;
    // One shared listener, no closure per request: this sits on every request's path (bench figure 1).
    (res as GatedResponse)[GATE_OF_RESPONSE] = this;
    res.on('finish', onAnswered);
    answer();
  }

  answered(): void {
    this.answering -= 1;
    if (this.waiting.length > 0) this.turns.wake(this);
  }

  /** One held-back request goes on, if a place is free; whether this gate wants another turn. */
  takeTurn(): boolean {
    if (this.closed || this.waiting.length === 0 || this.answering >= this.limit) return false;
    this.waiting.shift()!();
    if (this.waiting.length === 0 && this.paused) this.resume();
    return this.waiting.length > 0 && this.answering < this.limit;
  }

  /*
   * node:http's own way to stop reading a connection (lib/_http_server.js, for answers piling up in its buffers):
   * `_paused` keeps node from resuming the socket after each parsed request, and node pauses the parser once the
   * chunk being parsed is done. Setting it again for each held-back request also re-pauses a socket that node
   * resumed in between (when its buffered answers drained).
   */
  private pause(): void {
    this.paused = true;
    const socket = this.socket as NodeHttpSocket;
    socket._paused = true;
    socket.pause();
  }

  private resume(): void {
    this.paused = false;
    const socket = this.socket as NodeHttpSocket;
    // Answers still piling up: node resumes the socket itself once they drain.
    if (socket._paused !== true || socket.writableNeedDrain) return;
    socket._paused = false;
    socket.parser?.resume();
    socket.resume();
  }
}

/**
 * Held-back pipelined requests go on one per turn of the event loop, connections taking turns: background work
 * behind every new request and connection. Let through as soon as a place freed, answer after answer followed each
 * other in callbacks while the clients' kernel buffers took them, and node accepts one new connection per turn of a
 * busy loop: with 100 connections pipelining 300 requests each, a /health probe waited seconds in the accept queue.
 * One per turn, the connection's next answer still follows as soon as the loop has nothing more urgent to do.
 */
export class PipelineTurns {
  private readonly ready: PipelineGate[] = [];
  private scheduled = false;

  wake(gate: PipelineGate): void {
    if (!gate.queued) {
      gate.queued = true;
      this.ready.push(gate);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.ready.length === 0) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    const gate = this.ready.shift()!;
    gate.queued = false;
    if (gate.takeTurn()) this.wake(gate);
    this.schedule();
  };
}

/** The fields of a server socket node:http itself uses to pause a connection. */
type NodeHttpSocket = Socket & { _paused?: boolean; parser?: { resume(): void } | null };

function onAnswered(this: ServerResponse): void {
  (this as GatedResponse)[GATE_OF_RESPONSE]?.answered();
}

/** node:http's parser errors, as the named errors clients get for them; `undefined` for a connection gone bad. */
export function refusalFor(error: NodeJS.ErrnoException & { reason?: string }): Error | undefined {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new RequestHeaderFieldsTooLargeError(`The request line and headers together exceed the server's limit of ${maxHeaderSize} bytes.`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new PayloadTooLargeError('A chunk extension of the request body exceeds the server\'s limit.');
    case 'HPE_INVALID_EOF_STATE':
      // The client ended its side in the middle of a request: it has left, nobody to answer (the app logs it).
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeoutError('The request did not arrive in time: its headers, or the whole request, took longer than the server allows.');
    default:
      if (error.code?.startsWith('HPE_')) {
        const reason = error.reason ? `: ${error.reason.replace(/[^\x20-\x7e]/g, '?')}` : '';
        return new BadRequestError(`The request is not valid HTTP/1.1${reason}.`);
      }
      return undefined;
  }
}

/**
 * node:http's `clientError`: answers a refusal of the parser like every other error (JSON body, X-Request-Id,
 * access log) instead of node's bare status line, then closes the connection. A connection that broke (a reset)
 * or whose answer has begun is closed without a word.
 */
export function createClientErrorHandler(app: HttpApp): (error: Error, socket: Socket) => void {
  return (error, socket) => {
    const refusal = refusalFor(error as NodeJS.ErrnoException);
    const inProgress = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!refusal || !socket.writable || inProgress?.headersSent) {
      socket.destroy();
      return;
    }
    // The request node had begun to read, if it got as far as its request line.
    const incoming = (socket as Socket & { parser?: { incoming?: IncomingMessage | null } | null }).parser?.incoming ?? undefined;
    const response = app.refusal(refusal, { method: incoming?.method, url: incoming?.url });
    const body = typeof response.body === 'string' ? response.body : '';
    let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\n`;
    for (const [name, value] of Object.entries(response.headers)) head += `${name}: ${value}\r\n`;
    head += `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
    socket.once('finish', () => socket.destroy());
    socket.end(head + body);
  };
}

/** node:http's `checkExpectation` (an `Expect` other than 100-continue): 417 like every other error. */
export function createCheckExpectationHandler(app: HttpApp): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const expectation = String(req.headers.expect).replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
    answerRefusal(app, req, res, new ExpectationFailedError(`Expect: ${expectation} is not supported; only 100-continue is.`));
  };
}

/**
 * RFC 9112 3.2: an HTTP/1.1 request without a Host header, or with more than one, is a 400. node:http's own check
 * (`requireHostHeader`) answers a bare status line without a body, so node.ts turns it off and asks this instead.
 */
export function hostRefusal(req: IncomingMessage): Error | undefined {
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return undefined;
  if (req.headers.host === undefined) return new BadRequestError('An HTTP/1.1 request must carry a Host header.');
  // node keeps the first of repeated Host headers: the raw ones say whether there were several.
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts += 1;
  }
  return hosts > 1 ? new BadRequestError('A request must carry one Host header, not several.') : undefined;
}

/** A refusal of a request node handed over: the app's error answer, the connection closed after it. */
export function answerRefusal(app: HttpApp, req: IncomingMessage, res: ServerResponse, refusal: Error): void {
  const response = app.refusal(refusal, { method: req.method, url: req.url });
  const body = typeof response.body === 'string' ? response.body : '';
  // Its body, if it has one, is never read: close rather than drain it.
  res.writeHead(response.status, { ...response.headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
  res.end(body);
}
