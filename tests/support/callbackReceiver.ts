import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually.js';

/** One request the receiver got, with the status it answered. */
export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answeredWith: number;
}

/**
 * A run-callback receiver on loopback (a real node:http server). What it answers depends on the path's first segment:
 * `/flaky/...` 500 to the first two calls then 200, `/down/...` always 503, `/refuses/...` always 410, `/gate/...` 503
 * until `open(path)` is called and 200 after, else 200.
 */
export interface CallbackReceiver {
  url(path: string): string;
  calls(path: string): ReceivedCallback[];
  /** A `/gate/...` path answers 200 from now on. */
  open(path: string): void;
  /** Resolves once `path` has had `count` calls; rejects after `timeoutMs`. */
  waitForCalls(path: string, count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  close(): Promise<void>;
}

export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const opened = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const earlier = received.filter((call) => call.path === path).length;
      const kind = path.split('/')[1];
      const closedGate = kind === 'gate' && !opened.has(path);
      const status = kind === 'down' || closedGate ? 503 : kind === 'refuses' ? 410 : kind === 'flaky' && earlier < 2 ? 500 : 200;
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answeredWith: status });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const calls = (path: string): ReceivedCallback[] => received.filter((call) => call.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    calls,
    open: (path) => opened.add(path),
    async waitForCalls(path, count, timeoutMs = 30_000) {
      return eventually(
        () => `${count} callbacks on ${path} (it got ${calls(path).length})`,
        () => (calls(path).length >= count ? calls(path) : undefined),
        { timeoutMs, intervalMs: 50 },
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
