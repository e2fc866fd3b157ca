import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy on loopback that serves the API under a path prefix it strips, as a proxy in front of flowgate
 * would: the server never learns the prefix, so the page must find its API from its own URL. `dropConnections()`
 * cuts every open connection at once (a dropped network), which a live history stream must survive.
 */
export interface PrefixProxy {
  /** `http://127.0.0.1:PORT/PREFIX`: the API's root as the browser sees it. */
  url: string;
  /** Requests seen, as the browser sent them (path, Authorization, Cookie), for assertions on what left the page. */
  requests: { method: string; url: string; authorization: string | undefined; cookie: string | undefined; lastEventId: string | undefined }[];
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startPrefixProxy(target: string, prefix: string): Promise<PrefixProxy> {
  const upstream = new URL(target);
  const requests: PrefixProxy['requests'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    requests.push({
      method: req.method ?? 'GET',
      url,
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
      lastEventId: req.headers['last-event-id'] as string | undefined,
    });
    if (url !== prefix && !url.startsWith(`${prefix}/`) && !url.startsWith(`${prefix}?`)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('outside the proxied prefix');
      return;
    }
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: url.slice(prefix.length) || '/',
        headers: { ...req.headers, host: upstream.host },
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    dropConnections: () => server.closeAllConnections(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
