// Free loopback ports, found by letting the kernel pick (bind port 0). Every port of a server is chosen here rather
// than by the server itself so that a restart can ask for the very same ports again.
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/**
 * @param {number} count
 * @param {string} [host]
 * @returns {Promise<number[]>} `count` distinct ports, free at the time of the call.
 */
export async function findFreePorts(count, host = LOOPBACK) {
  /** @type {import('node:net').Server[]} */
  const servers = [];
  try {
    // Hold every socket open until all are chosen, so the kernel cannot hand out the same port twice.
    for (let index = 0; index < count; index += 1) {
      const server = createServer();
      servers.push(server);
      await new Promise((resolvePromise, reject) => {
        server.once('error', reject);
        server.listen({ host, port: 0, exclusive: true }, () => resolvePromise(undefined));
      });
    }
    return servers.map((server) => /** @type {import('node:net').AddressInfo} */ (server.address()).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolvePromise) => server.close(() => resolvePromise(undefined)))));
  }
}
