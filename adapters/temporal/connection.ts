import { Connection, type ConnectionOptions } from '@temporalio/client';
import { Http2Connection } from './http2/http2Connection.js';

export interface TemporalConnectionOptions {
  /** host:port of the Temporal frontend (TEMPORAL_ADDRESS). */
  address: string;
  /** TEMPORAL_API_KEY: sent as a bearer key; implies TLS. */
  apiKey?: string;
  /** TEMPORAL_TLS: use TLS with the system's CAs. @default false (true when apiKey is set) */
  tls?: boolean;
  /**
   * Largest message the client accepts and sends (MAX_RESULT_BYTES plus room for the envelope).
   * @temporalio/client 1.24 sets its own 128 MiB default under a key grpc-js ignores, so the `grpc.`-prefixed keys
   * are set here.
   */
  maxMessageBytes: number;
  /** Deadline for establishing the connection. @default 10000 */
  connectTimeoutMs?: number;
  /**
   * TEMPORAL_GRPC_TRANSPORT: `http2`, the calls over node:http2 (http2/http2Connection.ts), or `grpc-js`, the SDK's
   * own transport, which also goes through the proxy the environment names. @default 'http2'
   */
  transport?: 'http2' | 'grpc-js';
}

/** Envelope room on top of the payload cap: headers, memo, the rest of the response message. */
const ENVELOPE_ALLOWANCE_BYTES = 1024 * 1024;

export function temporalConnectionOptions(options: TemporalConnectionOptions): ConnectionOptions {
  if (!options.address) throw new TypeError('Temporal connection: options.address is required');
  if (!(options.maxMessageBytes > 0)) throw new RangeError('Temporal connection: options.maxMessageBytes must be positive');
  const limit = options.maxMessageBytes + ENVELOPE_ALLOWANCE_BYTES;
  const useTls = options.tls ?? options.apiKey !== undefined;
  return {
    address: options.address,
    ...(useTls ? { tls: true } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    // No SDK retry interceptor: its retry timers survive Connection.close() and throw uncaught from a timer when
    // they fire on the closed channel (seen in our outage test; reported against the SDK by others). Every call
    // here has its own deadline, and an unreachable engine answers 503 with Retry-After, so the client retries.
    interceptors: [],
    channelArgs: {
      'grpc.max_receive_message_length': limit,
      'grpc.max_send_message_length': limit,
      // Notice a dead server between calls instead of on the next request's deadline.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    },
  };
}

/**
 * The client's connection, its calls sent over node:http2 (http2/http2Connection.ts): about a third less CPU per call
 * than grpc-js (docs/performance.md, figure 9).
 */
export function connectTemporal(options: TemporalConnectionOptions): Promise<Connection> {
  if (options.transport === 'grpc-js') return Connection.connect(temporalConnectionOptions(options));
  return Http2Connection.connect(temporalConnectionOptions(options));
}
