import type { NativeConnectionOptions } from '@temporalio/worker';
import type { TemporalConnectionOptions } from '../connection.js';

/**
 * The worker's connection, to the same server with the same credentials as the client's (connection.ts): TLS with
 * the system's CAs when asked for, or implied by an API key. The native connection already accepts 128 MiB messages.
 */
export function nativeConnectionOptions(options: TemporalConnectionOptions): NativeConnectionOptions {
  if (!options.address) throw new TypeError('Temporal connection: options.address is required');
  const useTls = options.tls ?? options.apiKey !== undefined;
  return {
    address: options.address,
    ...(useTls ? { tls: true } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  };
}
