// Unary gRPC calls over one node:http2 connection: what the Temporal client's calls need (a deadline, cancellation,
// metadata, message limits, keepalive, reconnection) and nothing else. grpc-js spends about as much CPU on its
// per-call machinery (resolving, load-balancing and retrying call layers, filters, channelz) as the call's bytes cost;
// this does one stream per call (docs/performance.md, figure 9).
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import type { SecureClientSessionOptions } from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Link } from './link.js';
import { GrpcCallError, errorOfReset, errorOfTrailers, frameOfMessage, grpcTimeoutHeader, messageOfFrame, statusCodeOf, statusOfHttpStatus } from './grpcStatus.js';

export interface GrpcChannelOptions {
  /** `host:port` (`[v6]:port`). */
  address: string;
  /** TLS options when the connection is encrypted (the system's CAs unless `ca` is given); plaintext without. */
  tls?: Pick<SecureClientSessionOptions, 'ca' | 'cert' | 'key' | 'servername'> | undefined;
  /** The `:authority` of every request. @default the address */
  authority?: string | undefined;
  /** Largest answer accepted; a larger one fails the call with RESOURCE_EXHAUSTED. */
  maxReceiveBytes: number;
  /** Largest request sent; a larger one fails before it is sent. */
  maxSendBytes: number;
  /** A ping this often notices a server that went away without closing the connection; 0: no pings. */
  keepaliveMs: number;
  /** Ping while no call is in flight too, so a dead connection is replaced before the next call waits on it. */
  keepaliveWithoutCalls: boolean;
  /** A ping unanswered this long drops the connection (its calls fail UNAVAILABLE). */
  keepaliveTimeoutMs: number;
  /**
   * A connection whose server has not spoken HTTP/2 (its settings) this long after the connect began is given up (the
   * calls waiting on it fail UNAVAILABLE, and the next connect backs off): a TLS handshake that hangs, a SYN never
   * answered. @default 20000, grpc-js's
   */
  connectTimeoutMs?: number | undefined;
}

export interface UnaryCallOptions {
  /** Milliseconds since the epoch after which the call fails with DEADLINE_EXCEEDED (and is cancelled). */
  deadline?: number | undefined;
  /** Cancels the call: it fails with CANCELLED and the stream is reset. */
  signal?: AbortSignal | undefined;
}

export type UnaryCallback = (error: GrpcCallError | null, message?: Buffer) => void;

/**
 * After a connect that failed, calls fail at once for this long instead of each opening a connection (growing 1.6 ×
 * from 1 s to 10 s, each 80–100 % of that): a server that is down or coming back is not met with a connect per
 * request from every API process. grpc-js backs off alike, up to 120 s; 10 s keeps recovery prompt.
 */
const CONNECT_BACKOFF_MS = { first: 1000, max: 10_000, factor: 1.6 };
/** node's timers hold at most 2^31 - 1 ms; a later deadline is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * The last id HTTP/2 gives a client's stream (1, 3, 5, ... 2^31 - 1). Past it node refuses every request on the
 * connection and keeps the connection open, so a long-lived channel moves to a new one: at a few hundred calls a
 * second that comes weeks into a process's life.
 */
const LAST_STREAM_ID = 2 ** 31 - 1;
const { NGHTTP2_CANCEL, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_REFUSED_STREAM } = http2.constants;

/**
 * A gRPC channel on one HTTP/2 connection, opened on first use and again after the server closed or dropped it. A
 * server that asks to go away (GOAWAY) keeps its streams to the end while new calls open a new connection; a call the
 * server refused unprocessed (REFUSED_STREAM) is sent once more, as grpc-js does.
 */
export class GrpcChannel {
  private link: Link | undefined;
  private shutDown = false;
  /** Until when (Date.now()) no new connection is opened after a failed one; the next pause's length. */
  private backoffUntil = 0;
  private nextBackoffMs = CONNECT_BACKOFF_MS.first;
  private lastConnectError: Error | undefined;
  /** The keepalive interval of the next connection: doubled each time a server says the pings came too often. */
  private keepaliveMs: number;
  /** Aborted by close(): ends a ready() waiting between connect attempts. */
  private readonly closing = new AbortController();
  private readonly url: string;
  private readonly connectOptions: SecureClientSessionOptions;
  private readonly fixedHeaders: OutgoingHttpHeaders;

  constructor(private readonly options: GrpcChannelOptions) {
    if (!options.address) throw new TypeError('GrpcChannel: options.address is required');
    this.url = `${options.tls ? 'https' : 'http'}://${options.address}`;
    this.keepaliveMs = options.keepaliveMs;
    this.connectOptions = {
      // node's 10 MiB default would refuse streams while a large result is being read; grpc-js lifts both limits.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
      ...options.tls,
    };
    this.fixedHeaders = { ...FIXED_HEADERS, ...(options.authority ? { ':authority': options.authority } : {}) };
  }

  /**
   * Resolves once a connection is up and the server's HTTP/2 settings have arrived. A refused or failed connect is tried
   * again (1 s, growing to 10 s apart) until `deadline`, then fails as grpc-js's waitForReady does.
   */
  async ready(deadline: number): Promise<void> {
    for (;;) {
      if (this.shutDown) throw closedChannelError();
      const pause = Math.min(this.backoffUntil, deadline) - Date.now();
      if (pause > 0) {
        try {
          await sleep(pause, undefined, { signal: this.closing.signal });
        } catch {
          throw closedChannelError();
        }
        continue;
      }
      if (Date.now() >= deadline) break;
      const failure = await this.usableLink().settled(deadline - Date.now());
      if (failure === undefined) return;
    }
    const reason = this.lastConnectError;
    throw new Error(`Failed to connect before the deadline${reason ? `: ${reason.message}` : ''}`);
  }

  /** Sends one request message to `path` and calls back with the one answer message or the call's error. */
  unary(path: string, metadata: OutgoingHttpHeaders, message: Uint8Array, options: UnaryCallOptions, callback: UnaryCallback): void {
    if (this.shutDown) return callback(new GrpcCallError(GrpcStatus.UNAVAILABLE, 'Channel has been shut down'));
    if (message.length > this.options.maxSendBytes) {
      return callback(new GrpcCallError(GrpcStatus.RESOURCE_EXHAUSTED, `Sent message larger than max (${message.length} vs. ${this.options.maxSendBytes})`));
    }
    const headers: OutgoingHttpHeaders = { ...metadata, ...this.fixedHeaders, ':path': path };
    new UnaryCall(this, headers, frameOfMessage(message), options, this.options.maxReceiveBytes, callback).start();
  }

  /**
   * Refuses new calls and closes the connection once the calls on it are over; one still connecting, or with no call,
   * at once (a connect that hangs would otherwise hold the process).
   */
  close(): void {
    this.shutDown = true;
    this.closing.abort();
    this.link?.shutdown();
    this.link = undefined;
  }

  /**
   * @internal The connection a call goes on: the current one, or a new one when it is closing or gone, unless a
   * connect failed within the backoff (then UNAVAILABLE at once, as grpc-js fails a call while it backs off).
   */
  usableLink(): Link {
    if (this.shutDown) throw new GrpcCallError(GrpcStatus.UNAVAILABLE, 'Channel has been shut down');
    const current = this.link;
    if (current?.usable) return current;
    if (Date.now() < this.backoffUntil) {
      throw new GrpcCallError(GrpcStatus.UNAVAILABLE, `No connection established. Last error: ${this.lastConnectError?.message ?? 'unknown'}`);
    }
    const link = new Link(http2.connect(this.url, this.connectOptions), { ...this.options, keepaliveMs: this.keepaliveMs });
    // A server that enforces a longer ping interval closes the connection with ENHANCE_YOUR_CALM "too_many_pings";
    // as grpc-js does, the next connections ping half as often (else each would be closed the same way).
    link.session.once('goaway', (code: number, _lastStreamId: number, data?: Buffer) => {
      if (code === NGHTTP2_ENHANCE_YOUR_CALM && data?.toString() === 'too_many_pings') this.keepaliveMs = Math.min(this.keepaliveMs * 2, MAX_TIMER_MS);
    });
    // Connected means the server spoke HTTP/2 (its settings came): a socket closed before that is a failed connect.
    link.session.once('remoteSettings', () => {
      this.nextBackoffMs = CONNECT_BACKOFF_MS.first;
      this.backoffUntil = 0;
    });
    link.session.once('close', () => {
      if (this.link === link) this.link = undefined;
      if (!link.spokeHttp2 && !this.shutDown) this.connectFailed(link.failure);
    });
    this.link = link;
    return link;
  }

  private connectFailed(error: Error): void {
    this.lastConnectError = error;
    this.backoffUntil = Date.now() + Math.round(this.nextBackoffMs * (0.8 + 0.2 * Math.random()));
    this.nextBackoffMs = Math.min(CONNECT_BACKOFF_MS.max, this.nextBackoffMs * CONNECT_BACKOFF_MS.factor);
  }
}

const FIXED_HEADERS: OutgoingHttpHeaders = {
  ':method': 'POST',
  'content-type': 'application/grpc',
  te: 'trailers',
  'user-agent': 'flowgate-grpc-http2',
};

/** One unary call: its stream (and at most one resend of a refused stream), its deadline timer and its cancellation. */
class UnaryCall {
  private settled = false;
  private resent = false;
  private timer: NodeJS.Timeout | undefined;
  private stream: ClientHttp2Stream | undefined;
  /** While the call waits for its connection: stops the wait (a call that ends meanwhile leaves nothing behind). */
  private stopWaiting: (() => void) | undefined;

  constructor(
    private readonly channel: GrpcChannel,
    private readonly headers: OutgoingHttpHeaders,
    private readonly frame: Buffer,
    private readonly options: UnaryCallOptions,
    private readonly maxReceiveBytes: number,
    private readonly callback: UnaryCallback,
  ) {}

  start(): void {
    const { deadline, signal } = this.options;
    if (signal?.aborted) return this.settle(cancelledOnClient());
    if (deadline !== undefined) {
      const left = deadline - Date.now();
      if (!(left > 0)) return this.settle(deadlineExceeded());
      this.timer = setTimeout(this.onDeadline, Math.min(left, MAX_TIMER_MS));
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.send();
  }

  private send(): void {
    let link: Link;
    try {
      link = this.channel.usableLink();
    } catch (error) {
      return this.settle(unavailable(error));
    }
    link.begin();
    this.stopWaiting = link.whenConnected((error) => {
      this.stopWaiting = undefined;
      if (this.settled || error) {
        link.end();
        if (error) this.settle(unavailable(error));
        return;
      }
      this.request(link);
    });
  }

  private request(link: Link): void {
    const { deadline } = this.options;
    if (deadline !== undefined) this.headers['grpc-timeout'] = grpcTimeoutHeader(deadline - Date.now());
    let stream: ClientHttp2Stream;
    try {
      stream = link.session.request(this.headers, { endStream: false });
    } catch (error) {
      link.end();
      // A usable connection that refuses the request refuses what it was asked to send, not the server.
      return this.settle(link.usable ? new GrpcCallError(GrpcStatus.INTERNAL, `The request could not be sent: ${messageOf(error)}`) : unavailable(error));
    }
    this.stream = stream;
    if (stream.id !== undefined && stream.id >= LAST_STREAM_ID) link.retire();
    let httpStatus = 0;
    let trailers: IncomingHttpHeaders | undefined;
    let streamError: Error | undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    stream.once('response', (headers) => {
      httpStatus = Number(headers[':status']);
      // A trailers-only answer (an error before any message) carries its status in the headers.
      if (headers['grpc-status'] !== undefined) trailers = headers;
    });
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received - 5 > this.maxReceiveBytes) {
        this.settle(new GrpcCallError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${received - 5} vs. ${this.maxReceiveBytes})`));
        stream.close(NGHTTP2_CANCEL);
        return;
      }
      chunks.push(chunk);
    });
    stream.once('trailers', (headers) => {
      trailers = headers;
    });
    stream.on('error', (error: Error) => {
      streamError ??= error;
    });
    stream.once('close', () => {
      link.end();
      if (this.settled) return;
      if (trailers) return this.settleWithTrailers(trailers, chunks);
      if (httpStatus !== 0 && httpStatus !== 200) {
        return this.settle(new GrpcCallError(statusOfHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`));
      }
      const errorCode = (streamError as { code?: unknown } | undefined)?.code;
      if (errorCode === 'ERR_HTTP2_OUT_OF_STREAMS') link.retire();
      if (httpStatus === 0 && !this.resent && wasRefused(stream, errorCode)) {
        this.resent = true;
        return this.send();
      }
      // A stream the server reset: node reports every code but NO_ERROR and CANCEL as a stream error; the code says why.
      if (errorCode === 'ERR_HTTP2_STREAM_ERROR' && !link.session.destroyed) return this.settle(errorOfReset(stream.rstCode));
      if (streamError || link.session.destroyed) {
        // The connection went before the answer was complete (dropped, or its keepalive unanswered): grpc-js's
        // "Connection dropped", which callers treat as the engine being unreachable.
        return this.settle(streamError ? unavailable(streamError) : new GrpcCallError(GrpcStatus.UNAVAILABLE, 'Connection dropped'));
      }
      this.settle(stream.rstCode ? errorOfReset(stream.rstCode) : new GrpcCallError(GrpcStatus.INTERNAL, 'The server closed the stream without a status'));
    });
    stream.end(this.frame);
  }

  private settleWithTrailers(trailers: IncomingHttpHeaders, chunks: Buffer[]): void {
    if (statusCodeOf(trailers['grpc-status']) !== GrpcStatus.OK) return this.settle(errorOfTrailers(trailers));
    const message = messageOfFrame(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    if (message instanceof GrpcCallError) return this.settle(message);
    this.settle(null, message);
  }

  private settle(error: GrpcCallError | null, message?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const stopWaiting = this.stopWaiting;
    this.stopWaiting = undefined;
    stopWaiting?.();
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.callback(error, message);
  }

  private readonly onDeadline = (): void => {
    const left = this.options.deadline! - Date.now();
    if (left > 0) {
      this.timer = setTimeout(this.onDeadline, Math.min(left, MAX_TIMER_MS));
      return;
    }
    this.settle(deadlineExceeded());
    this.stream?.close(NGHTTP2_CANCEL);
  };

  private readonly onAbort = (): void => {
    this.settle(cancelledOnClient());
    this.stream?.close(NGHTTP2_CANCEL);
  };
}

/**
 * The stream was never processed: the server refused it, the connection was going away before it was sent, or the
 * connection had no stream id left for it (`errorCode`: the stream error's code).
 */
function wasRefused(stream: ClientHttp2Stream, errorCode: unknown): boolean {
  return stream.rstCode === NGHTTP2_REFUSED_STREAM || errorCode === 'ERR_HTTP2_GOAWAY_SESSION' || errorCode === 'ERR_HTTP2_OUT_OF_STREAMS';
}

function unavailable(error: unknown): GrpcCallError {
  if (error instanceof GrpcCallError) return error;
  return new GrpcCallError(GrpcStatus.UNAVAILABLE, `Connection failed: ${messageOf(error)}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function closedChannelError(): Error {
  return new Error('The connection is closed');
}

function deadlineExceeded(): GrpcCallError {
  return new GrpcCallError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded');
}

function cancelledOnClient(): GrpcCallError {
  return new GrpcCallError(GrpcStatus.CANCELLED, 'Cancelled on client');
}
