import { createServer, type AddressInfo, type Server } from 'node:net';

/** The Temporal dev server listens on loopback only: it has no authentication. */
export const LOOPBACK = '127.0.0.1';

/**
 * `count` distinct ports free at the time of the call, found by letting the kernel pick (bind port 0). Every port of
 * a server is chosen here rather than by the server itself so that a restart can ask for the very same ports again.
 */
export async function findFreePorts(count: number, host: string = LOOPBACK): Promise<number[]> {
  const servers: Server[] = [];
  try {
    // Hold every socket open until all are chosen, so the kernel cannot hand out the same port twice.
    for (let index = 0; index < count; index += 1) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port: 0, exclusive: true }, () => resolve());
      });
    }
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
