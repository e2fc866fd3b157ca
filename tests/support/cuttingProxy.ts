import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a test API that breaks one exchange the way networks do: it cuts a connection in
 * the middle of an answer, or answers in the API's place (a gateway's 429). Everything else passes through byte for
 * byte. Each rule is used once, on the first connection it matches.
 */
export interface ProxyRule {
  /** Whether this connection's request (its text so far) is the one to break. */
  matches(request: string): boolean;
  /**
   * Cut: given the answer's text so far, how many of its characters the client gets before both sockets are
   * destroyed, or undefined to keep forwarding. 0 drops the answer entirely.
   */
  cutAfter?(answer: string): number | undefined;
  /** Answer this raw HTTP response instead of forwarding the request. */
  respond?: string;
}

export interface CuttingProxy {
  url: string;
  /** The requests (their first bytes) the proxy saw, one per connection, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string, rules: ProxyRule[]): Promise<CuttingProxy> {
  const upstream = new URL(target);
  const pending = [...rules];
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    let request = '';
    let answer = '';
    let forwarded = 0;
    let rule: ProxyRule | undefined;
    const index = requests.push('') - 1;
    const api = createConnection({ host: upstream.hostname, port: Number(upstream.port) });
    sockets.add(api);
    api.on('close', () => sockets.delete(api));
    const end = () => {
      client.destroy();
      api.destroy();
    };
    client.on('error', end);
    api.on('error', end);
    client.on('close', end);
    api.on('close', () => client.end());
    client.on('data', (chunk: Buffer) => {
      request += chunk.toString('latin1');
      requests[index] = request;
      if (rule === undefined) {
        const found = pending.findIndex((candidate) => candidate.matches(request));
        if (found !== -1) rule = pending.splice(found, 1)[0];
        if (rule?.respond !== undefined) {
          client.end(rule.respond);
          api.destroy();
          return;
        }
      }
      api.write(chunk);
    });
    api.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (rule?.cutAfter === undefined) {
        client.write(chunk);
        return;
      }
      answer += text;
      const limit = rule.cutAfter(answer);
      if (limit === undefined) {
        client.write(chunk);
        forwarded += text.length;
        return;
      }
      if (limit > forwarded) client.write(Buffer.from(answer.slice(forwarded, limit), 'latin1'));
      end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A rule's cut point: just after the `count`-th server-sent event named `name` (its blank line included). */
export function afterEvent(name: string, count: number): (answer: string) => number | undefined {
  return (answer) => {
    let from = 0;
    for (let seen = 0; seen < count; seen += 1) {
      const at = answer.indexOf(`event: ${name}\n`, from);
      if (at === -1) return undefined;
      const end = answer.indexOf('\n\n', at);
      if (end === -1) return undefined;
      from = end + 2;
    }
    return from;
  };
}
