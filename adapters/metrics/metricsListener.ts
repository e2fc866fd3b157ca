import { createServer } from 'node:http';
import { listenOn } from '../http/listen.js';
import type { MetricsExposition } from '../../ports/metrics.js';

export interface MetricsListener {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  close(): Promise<void>;
}

/**
 * A listener of its own for GET /metrics (METRICS_PORT): a Prometheus scraper on a private network reads it without
 * the API token, and a scrape never queues behind API traffic. Anything else is a 404; no other route is served here.
 */
export async function startMetricsListener(metrics: MetricsExposition, host: string, port: number): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served on this port.\n');
      return;
    }
    metrics.exposition().then(
      (text) => {
        // HEAD is GET without the body: the same headers, its length included.
        const headers = { 'content-type': metrics.contentType, 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)) };
        response.writeHead(200, headers).end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected.\n'),
    );
  });
  // Scrapes are short: an idle keep-alive connection is not held open past a scrape interval's worth.
  server.keepAliveTimeout = 5_000;
  const url = await listenOn(server, port, host);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
