import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { OutboundAddressRefusedError } from '../../core/definition/failures.js';
import { describeRefusal, loopbackNameRefusal, outboundRefusal, refusalKind, unlistedHostRefusal, type OutboundAllowlist } from '../../core/domain/outboundAddress.js';

/** Every address a host name resolves to (dns.lookup with `all`). Tests inject one, so no test asks DNS. */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

const systemResolve: ResolveHost = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

export interface GuardedAgentOptions {
  allowlist: OutboundAllowlist;
  /** @default the system resolver (dns.lookup, as net.connect uses) */
  resolve?: ResolveHost;
  /** Deadline of one connection (TCP and TLS). */
  connectTimeoutMs: number;
}

/**
 * An undici Agent that connects only to addresses the outbound rules allow (core/domain/outboundAddress.ts). The check
 * sits where the connection is made: an address host is checked as it is, a host name through the `lookup` the socket
 * itself uses, on every address the name resolves to, before any of them is tried. So the address checked is the
 * address connected to: a name that resolves differently a moment later (DNS rebinding) gains nothing, and each
 * redirect, being a new connection, is checked again. A refusal fails the connection with OutboundAddressRefusedError.
 */
export function guardedAgent(options: GuardedAgentOptions): Agent {
  const { allowlist, connectTimeoutMs } = options;
  const resolve = options.resolve ?? systemResolve;

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (resolved) => {
        for (const { address } of resolved) {
          const refusal = outboundRefusal(hostname, address, allowlist);
          if (refusal) return callback(new OutboundAddressRefusedError(`${hostname} resolves to ${refusal.address}, ${refusalKind(refusal)}`, hostname, refusal.address), '');
        }
        const family = lookupOptions.family === 4 || lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 6 || lookupOptions.family === 'IPv6' ? 6 : 0;
        const usable = family === 0 ? resolved : resolved.filter((entry) => entry.family === family);
        if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${family || ''} address`), { code: 'ENOTFOUND' }), '');
        if (lookupOptions.all) return callback(null, [...usable]);
        return callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  const connect = buildConnector({ timeout: connectTimeoutMs, lookup });
  return new Agent({
    connect: (connectOptions, callback) => {
      // Allow-list only: a name the list does not name is refused here, before it is looked up.
      // And a name that always means loopback (`localhost`), refused as its addresses would be, without a lookup.
      const byName = unlistedHostRefusal(connectOptions.hostname, allowlist) ?? loopbackNameRefusal(connectOptions.hostname, allowlist);
      if (byName) return callback(new OutboundAddressRefusedError(describeRefusal(byName), connectOptions.hostname, byName.address), null);
      // An address host never reaches `lookup` (net connects to it directly): it is checked here.
      if (isIP(connectOptions.hostname)) {
        const refusal = outboundRefusal(connectOptions.hostname, connectOptions.hostname, allowlist);
        if (refusal) return callback(new OutboundAddressRefusedError(describeRefusal(refusal), connectOptions.hostname, refusal.address), null);
      }
      return connect(connectOptions, callback);
    },
  });
}
