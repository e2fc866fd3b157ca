// One HTTP/2 connection of a GrpcChannel (grpcChannel.ts): its connect timeout, the server's settings the calls wait
// for, its keepalive pings, and its retirement once no new call may go on it.
import type { ClientHttp2Session } from 'node:http2';
import type { GrpcChannelOptions } from './grpcChannel.js';

/** grpc-js's connect timeout (GrpcChannelOptions.connectTimeoutMs). */
const CONNECT_TIMEOUT_MS = 20_000;

/**
 * One HTTP/2 connection and the calls on it. It holds the process open only while calls are in flight (grpc-js's
 * behaviour too): an idle client does not keep a finished program alive.
 */
export class Link {
  private active = 0;
  private goingAway = false;
  private hasSettings = false;
  private lastError: Error | undefined;
  /** Calls waiting for the connection to be up, called back once it is or once it failed. */
  private waiting = new Set<(error: Error | undefined) => void>();
  private keepalive: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly session: ClientHttp2Session,
    private readonly options: Pick<GrpcChannelOptions, 'keepaliveMs' | 'keepaliveTimeoutMs' | 'keepaliveWithoutCalls' | 'connectTimeoutMs'>,
  ) {
    session.unref();
    const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    const connectTimer = setTimeout(() => {
      session.destroy(new Error(`the server did not answer within ${connectTimeoutMs} ms of the connect`));
    }, connectTimeoutMs).unref();
    // A failed connection closes every stream on it with the error; each call reports it there.
    session.on('error', (error: Error) => {
      this.lastError ??= error;
    });
    session.once('goaway', () => {
      this.goingAway = true;
    });
    // Calls wait for the server's settings, not just the socket: sent before them, a burst could exceed the server's
    // limit of concurrent streams, which node only queues by once it knows it.
    session.once('remoteSettings', () => {
      this.hasSettings = true;
      clearTimeout(connectTimer);
      this.release(undefined);
    });
    session.once('close', () => {
      clearTimeout(connectTimer);
      this.stopKeepalive();
      this.release(this.failure);
    });
    if (options.keepaliveWithoutCalls) this.startKeepalive();
  }

  get usable(): boolean {
    return !this.goingAway && !this.session.closed && !this.session.destroyed;
  }

  /** Whether the server's HTTP/2 settings arrived: it was a connection, not just a socket. */
  get spokeHttp2(): boolean {
    return this.hasSettings;
  }

  /** Why the connection failed or closed: the first error it met, or its closing. */
  get failure(): Error {
    return this.lastError ?? new Error('the connection closed');
  }

  begin(): void {
    if (this.active++ > 0) return;
    this.session.ref();
    this.startKeepalive();
  }

  end(): void {
    if (--this.active > 0) return;
    this.session.unref();
    if (!this.options.keepaliveWithoutCalls) this.stopKeepalive();
  }

  /**
   * Calls back once the connection is up and the server's settings are in (at once when they are), or with the error it
   * failed with. A call is only written to a connected session: one cancelled while the connection is being made is
   * never sent. While it waits, the function returned forgets the callback and ends the call's hold on the connection.
   */
  whenConnected(callback: (error: Error | undefined) => void): (() => void) | undefined {
    if (this.session.destroyed) return void callback(this.failure);
    if (this.hasSettings) return void callback(undefined);
    this.waiting.add(callback);
    return () => {
      if (this.waiting.delete(callback)) this.end();
    };
  }

  /** Resolves undefined once the server's settings have arrived, or the error the connect failed with (or a timeout). */
  settled(ms: number): Promise<Error | undefined> {
    const session = this.session;
    if (this.hasSettings && !session.destroyed) return Promise.resolve(undefined);
    if (session.destroyed) return Promise.resolve(this.failure);
    return new Promise((resolve) => {
      const done = (result: Error | undefined): void => {
        clearTimeout(timer);
        session.off('remoteSettings', onSettings).off('close', onClose);
        resolve(result);
      };
      const onSettings = (): void => done(undefined);
      const onClose = (): void => done(this.failure);
      const timer = setTimeout(() => done(new Error('timed out')), Math.max(0, ms));
      session.once('remoteSettings', onSettings).once('close', onClose);
    });
  }

  /** No new calls go on this connection: it closes once the calls on it are over. */
  retire(): void {
    this.goingAway = true;
    this.session.close();
  }

  /** Closes the connection: at once when no call is on it or it is still connecting, else once its calls are over. */
  shutdown(): void {
    if (this.active === 0 || this.session.connecting) this.session.destroy();
    else this.session.close();
  }

  private release(error: Error | undefined): void {
    const waiting = this.waiting;
    this.waiting = new Set();
    for (const callback of waiting) callback(error);
  }

  private startKeepalive(): void {
    if (this.keepalive || !(this.options.keepaliveMs > 0) || this.session.destroyed) return;
    this.keepalive = setInterval(this.ping, this.options.keepaliveMs).unref();
  }

  private readonly ping = (): void => {
    const session = this.session;
    if (this.pingTimer || session.connecting || session.destroyed || session.closed) return;
    let sent = false;
    try {
      sent = session.ping(() => {
        clearTimeout(this.pingTimer);
        this.pingTimer = undefined;
      });
    } catch {
      return;
    }
    if (!sent) return;
    this.pingTimer = setTimeout(() => {
      this.pingTimer = undefined;
      session.destroy(new Error(`keepalive ping unanswered for ${this.options.keepaliveTimeoutMs} ms`));
    }, this.options.keepaliveTimeoutMs).unref();
  };

  private stopKeepalive(): void {
    clearInterval(this.keepalive);
    clearTimeout(this.pingTimer);
    this.keepalive = undefined;
    this.pingTimer = undefined;
  }
}
