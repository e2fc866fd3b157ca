import { connect, type Socket } from 'node:net';
import type { HistoryStreamItem } from '../../../core/api/views.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from '../../../adapters/http/index.js';
import { RecordingApi, SequentialIds, statusView } from './fakeApi.js';
import { HTTP_APP_DEFAULTS, HTTP_SERVER_DEFAULTS } from '../../support/httpDefaults.js';
import { CapturingLogger } from '../../support/logLines.js';

/** A real node:http server on a free loopback port in front of a recording API double. */
export interface Harness {
  server: RunningHttpServer;
  api: RecordingApi;
  logger: CapturingLogger;
}

export async function startHarness(options: Partial<HttpServerOptions> = {}): Promise<Harness> {
  const api = new RecordingApi();
  const logger = new CapturingLogger();
  const server = await startHttpServer({ api, logger, ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, ...HTTP_SERVER_DEFAULTS, ...options });
  return { server, api, logger };
}

/** A history stream that never closes by itself: the shape of a running workflow's stream. */
export function followForever(api: RecordingApi): void {
  api.overrides.historyStream = async (run, streamRequest) =>
    (async function* (): AsyncGenerator<HistoryStreamItem> {
      yield { event: 'workflow', data: statusView(run.workflowId, 'running') };
      await new Promise((resolve) => streamRequest.signal.addEventListener('abort', resolve, { once: true }));
    })();
}

/** A raw client socket, for clients no HTTP library would be: silent, greedy, pipelining, half-finished. */
export interface RawClient {
  socket: Socket;
  /** Everything received so far, as latin1 text (byte for byte). */
  received(): string;
  closed: Promise<void>;
}

export async function rawClient(url: string): Promise<RawClient> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

/** The server side of every connection the server accepts from now on, in order. */
export function serverSockets(server: RunningHttpServer): Socket[] {
  const sockets: Socket[] = [];
  server.server.on('connection', (socket: Socket) => sockets.push(socket));
  return sockets;
}

/** The access-log lines the app wrote. */
export function accessLog(logger: CapturingLogger): Record<string, unknown>[] {
  return logger.entries.filter((entry) => entry.message === 'http request').map((entry) => entry.fields);
}
