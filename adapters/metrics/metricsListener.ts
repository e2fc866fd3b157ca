import { createServer } from 'node:http';
import { listenOn } from '../http/listen.js';
import { compressWhole, COMPRESSION_THRESHOLD_CHARS, wholeAnswerCoding } from '../http/compression.js';
import type { MetricsExposition } from '../../ports/metrics.js';

export interface MetricsListener {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  close(): Promise<void>;
}

export interface MetricsListenerOptions {
  /** Whether a scrape that accepts brotli or gzip (Prometheus asks for gzip) gets the text compressed (COMPRESSION). */
  compression: boolean;
}

/**
 * A listener of its own for GET /metrics (METRICS_PORT): a Prometheus scraper on a private network reads it without
 * the API token, and a scrape never queues behind API traffic. Anything else is a 404; no other route is served here.
 */
export async function startMetricsListener(metrics: MetricsExposition, host: string, port: number, options: MetricsListenerOptions): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served on this port.\n');
      return;
    }
    metrics.exposition().then(
      async (text) => {
        // The API's rules (adapters/http/compression.ts): the coding the scrape accepts, from 1 KiB on.
        const coding = options.compression ? wholeAnswerCoding(request.headers['accept-encoding']) : 'identity';
        const body = coding === 'identity' || text.length < COMPRESSION_THRESHOLD_CHARS ? text : await compressWhole(text, coding);
        // HEAD is GET without the body: the same headers, its length included.
        const headers: Record<string, string> = { 'content-type': metrics.contentType, 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(body)) };
        if (options.compression) headers['vary'] = 'Accept-Encoding';
        if (typeof body !== 'string') headers['content-encoding'] = coding;
        response.writeHead(200, headers).end(request.method === 'HEAD' ? undefined : body);
      },
    ).catch(() => {
      if (response.headersSent) response.destroy();
      else response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected.\n');
    });
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
