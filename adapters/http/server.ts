import { setMaxListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { createHttpApp, type HttpApp } from './app.js';
import { listenOn } from './listen.js';
import { toNodeHandler } from './node.js';
import type { HttpAppOptions } from './options.js';

export interface HttpServerOptions extends HttpAppOptions {
  /** Interface to listen on (HOST; loopback unless configured: without a token the API must not be reachable). */
  host: string;
  /** PORT; 0 picks a free port. */
  port: number;
  /** Time a client has to send the request headers (slowloris protection; HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /**
   * Time a client has to send the whole request, body included (REQUEST_TIMEOUT_MS). Does not limit how long the
   * answer may take (POST /workflow/run may wait up to an hour; SSE streams last as long as the run).
   */
  requestTimeoutMs: number;
  /**
   * How long an idle keep-alive connection stays open. Behind a load balancer, set it above the balancer's own idle
   * timeout, so the balancer never sends a request on a connection this server is just closing.
   * @default 5000
   */
  keepAliveTimeoutMs?: number;
  /**
   * Most connections open at once. A connection beyond it gets 503 `ServerBusyError` with `Retry-After` on its
   * request (health, readiness and the document are still answered) and is closed after it, so an overload is
   * told to back off instead of piling up sockets and memory. Beyond twice this number, connections are dropped
   * at once (node's `maxConnections`; MAX_CONNECTIONS).
   */
  maxConnections: number;
  /**
   * Most requests of one connection answered at once (HTTP/1.1 pipelining); while that many wait for their answers
   * to leave, the connection's next requests are not read (MAX_PIPELINED_REQUESTS).
   */
  maxPipelinedRequests: number;
}

export interface RunningHttpServer {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  server: Server;
  /**
   * Graceful shutdown, in stages; safe to call twice (both calls get the same promise): stop accepting, close idle
   * keep-alive connections, end SSE streams at once, let in-flight requests finish for up to `graceMs`
   * (SHUTDOWN_GRACE_MS), then force-close what is left.
   */
  close(graceMs: number): Promise<void>;
}

/** The server's own defaults; the configured ones (address, limits, grace) have theirs in composition/config.ts. */
export const HTTP_SERVER_DEFAULTS = {
  keepAliveTimeoutMs: 5_000,
} as const;

/** The server's own settings, for an app made beforehand (createHttpApp). */
export type HttpServerSettings = Omit<HttpServerOptions, keyof HttpAppOptions>;

export async function startHttpServer(options: HttpServerOptions | (HttpServerSettings & { app: HttpApp })): Promise<RunningHttpServer> {
  const { host, port } = options;
  const app = 'app' in options ? options.app : createHttpApp(options);
  const shutdown = new AbortController();
  // Each open event stream listens for the shutdown: thousands of followers at once are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const { maxConnections } = options;
  if (!Number.isSafeInteger(maxConnections) || maxConnections < 1) {
    throw new TypeError(`Invalid HTTP server options: maxConnections must be a positive integer, got ${String(maxConnections)}`);
  }
  const overCapacity = new WeakSet<Socket>();
  const handle = toNodeHandler(app, {
    shutdownSignal: shutdown.signal,
    isOverCapacity: (socket) => overCapacity.has(socket),
    maxPipelinedRequests: options.maxPipelinedRequests,
  });

  const { headersTimeoutMs: headersTimeout, requestTimeoutMs: requestTimeout } = options;
  // Node enforces both timeouts on this interval (30 s by default): a 1 s timeout would otherwise take 30 s to bite.
  const connectionsCheckingInterval = Math.max(100, Math.min(30_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)));
  // Responses written during shutdown carry `Connection: close` (node.ts), and close() closes the connections idle
  // at that moment, so no per-request listener is needed to find the connections that become idle later.
  const server = createServer({ connectionsCheckingInterval }, handle);
  // Refusals below the app answered like every error; Expect: 100-continue decided by the request's headers.
  handle.attachTo(server);
  // Beyond the cap a connection is still accepted, to be told 503; beyond twice the cap node drops it unanswered,
  // so silent clients cannot pile up sockets either.
  server.maxConnections = 2 * maxConnections;
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? HTTP_SERVER_DEFAULTS.keepAliveTimeoutMs;

  let openConnections = 0;
  server.on('connection', (socket: Socket) => {
    openConnections += 1;
    if (openConnections > maxConnections) overCapacity.add(socket);
    socket.once('close', () => {
      openConnections -= 1;
    });
  });

  const url = await listenOn(server, port, host);

  let closing: Promise<void> | undefined;
  const close = (graceMs: number): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      shutdown.abort();
      server.closeIdleConnections();
      const forceClose = setTimeout(() => server.closeAllConnections(), graceMs);
      void closed.then(() => {
        clearTimeout(forceClose);
        resolve();
      });
    }));

  return { url, server, close };
}
