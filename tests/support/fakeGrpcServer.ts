// Loopback servers for the HTTP/2 gRPC transport's tests (tests/unit/temporal/grpcChannel.test.ts,
// http2Connection.test.ts): an HTTP/2 server that answers as a gRPC server would, a TCP relay that can delay or go
// silent, and a port nobody listens on.
import http2, { type Http2Server, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { connect as connectTcp, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { frameOfMessage } from '../../adapters/temporal/http2/grpcStatus.js';

export interface Seen {
  headers: IncomingHttpHeaders;
  body: Buffer;
  stream: ServerHttp2Stream;
  /** Resolves with the stream's reset code once the server side closes. */
  closed: Promise<number>;
}

export type Handler = (seen: Seen) => void;

export interface FakeServer {
  address: string;
  seen: Seen[];
  sessions: Http2Session[];
  close(): Promise<void>;
}

const TLS_DIR = new URL('../fixtures/tls/', import.meta.url);
export const CERT = readFileSync(new URL('loopback.crt', TLS_DIR));
export const KEY = readFileSync(new URL('loopback.key', TLS_DIR));

export async function fakeServer(handler: Handler, { tls = false, settings = {} }: { tls?: boolean; settings?: http2.Settings } = {}): Promise<FakeServer> {
  const server: Http2Server | http2.Http2SecureServer = tls ? http2.createSecureServer({ cert: CERT, key: KEY, settings }) : http2.createServer({ settings });
  const seen: Seen[] = [];
  const sessions: Http2Session[] = [];
  server.on('session', (session) => sessions.push(session));
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode)));
    stream.on('error', () => {});
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => {
      const entry = { headers, body: Buffer.concat(chunks), stream, closed };
      seen.push(entry);
      handler(entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    sessions,
    close: async () => {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function answer(stream: ServerHttp2Stream, message: Uint8Array, trailers: Record<string, string> = {}): void {
  // A stream the client reset before it was answered (a cancelled call) has nobody to answer.
  if (stream.destroyed) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', ...trailers }));
  stream.end(frameOfMessage(message));
}

export function fail(stream: ServerHttp2Stream, code: number, message: string, extra: Record<string, string> = {}): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message), ...extra }, { endStream: true });
}


export interface TcpProxy {
  address: string;
  /** Stops passing bytes either way on the connections open now, leaving them open: a server gone silent. */
  freeze(): void;
  close(): Promise<void>;
}

/** A loopback TCP relay to `target`, passing bytes after `delayMs` on each new connection. */
export async function tcpProxy(target: string, { delayMs = 0 } = {}): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets: Socket[] = [];
  const server = createTcpServer((client) => {
    client.pause();
    const upstream = connectTcp(port, host);
    sockets.push(client, upstream);
    for (const socket of [client, upstream]) socket.on('error', () => {});
    setTimeout(() => {
      client.pipe(upstream);
      upstream.pipe(client);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => {
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function closedPort(): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
