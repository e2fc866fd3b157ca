import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on `port` (0: a free one) and `host`; resolves with the URL it serves on, or rejects as listen fails. */
export async function listenOn(server: Server, port: number, host: string | undefined): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${urlHost}:${address.port}`;
}
