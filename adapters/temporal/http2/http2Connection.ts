// The Temporal client's Connection with its gRPC calls sent over node:http2 (grpcChannel.ts) instead of grpc-js. Every
// other part of the client is the SDK's own: the services are the same protobuf service objects, the deadline, abort
// signal and metadata come from the connection's call context (withDeadline, withAbortSignal, withMetadata), the
// namespace header and API key are added as the SDK adds them, and errors have grpc-js's shape.
import type { OutgoingHttpHeaders } from 'node:http2';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import type { ConnectionCtorOptions } from '@temporalio/client/lib/connection.js';
import proto from '@temporalio/proto';
import { GrpcChannel, type GrpcChannelOptions } from './grpcChannel.js';
import { GrpcCallError } from './grpcStatus.js';

/** grpc-js's default receive limit; the send side has none. */
const DEFAULT_MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

type CallContextStorage = ConnectionCtorOptions['callContextStorage'];
type ApiKeyRef = ConnectionCtorOptions['apiKeyFnRef'];
/** The callback form of a protobufjs service's transport (what `Service.create` takes). */
type RpcImpl = (method: { name: string }, request: Uint8Array, callback: (error: Error | null, response?: Uint8Array | null) => void) => void;

interface Http2CtorOptions extends ConnectionCtorOptions {
  readonly channel: GrpcChannel;
}

/**
 * A Connection whose calls go over one HTTP/2 connection of flowgate's own. It takes the options Connection.connect
 * takes, less the two that are grpc-js objects: `credentials`/`callCredentials` (use `tls` and `apiKey`) and gRPC
 * `interceptors`.
 */
export class Http2Connection extends Connection {
  private readonly channel: GrpcChannel;

  protected constructor(options: Http2CtorOptions) {
    super(options);
    this.channel = options.channel;
  }

  static override async connect(options?: ConnectionOptions): Promise<Http2Connection> {
    return (await super.connect(options)) as Http2Connection;
  }

  protected static override createCtorOptions(options: ConnectionOptions): Http2CtorOptions {
    if (options.credentials || options.callCredentials) {
      throw new TypeError('Http2Connection: grpc-js credentials cannot be used; give `tls` and `apiKey` instead');
    }
    if (options.interceptors?.length) throw new TypeError('Http2Connection: gRPC interceptors (grpc-js) cannot be used');
    const base = super.createCtorOptions({ ...options, interceptors: [] });
    const channel = new GrpcChannel(channelOptions(base.options.address, options, base.options.channelArgs));
    const transport = (serviceName: string): RpcImpl =>
      rpcOverChannel(channel, serviceName, base.callContextStorage, base.options.metadata, base.apiKeyFnRef);
    return {
      ...base,
      channel,
      workflowService: proto.temporal.api.workflowservice.v1.WorkflowService.create(transport('temporal.api.workflowservice.v1.WorkflowService'), false, false),
      operatorService: proto.temporal.api.operatorservice.v1.OperatorService.create(transport('temporal.api.operatorservice.v1.OperatorService'), false, false),
      healthService: proto.grpc.health.v1.Health.create(transport('grpc.health.v1.Health'), false, false),
    };
  }

  protected override untilReady(deadline: number): Promise<void> {
    return this.channel.ready(deadline);
  }

  override async close(): Promise<void> {
    this.channel.close();
    await super.close();
  }
}

/** The channel's settings from the connection's options: TLS as the SDK reads `tls` and `apiKey`, limits and keepalive from the gRPC channel args. */
export function channelOptions(address: string, options: ConnectionOptions, channelArgs: Record<string, unknown>): GrpcChannelOptions {
  const tls = options.tls === true || (options.tls == null && options.apiKey !== undefined) ? {} : options.tls || undefined;
  const number = (key: string, fallback: number): number => {
    const value = channelArgs[key];
    return typeof value === 'number' && value >= 0 ? value : fallback;
  };
  // A message length of -1 is grpc-js's "no limit".
  const messageLength = (key: string, fallback: number): number => (channelArgs[key] === -1 ? Number.POSITIVE_INFINITY : number(key, fallback));
  return {
    address,
    tls: tls && {
      ...(tls.serverRootCACertificate ? { ca: Buffer.from(tls.serverRootCACertificate) } : {}),
      ...(tls.clientCertPair ? { cert: Buffer.from(tls.clientCertPair.crt), key: Buffer.from(tls.clientCertPair.key) } : {}),
      ...(tls.serverNameOverride ? { servername: tls.serverNameOverride } : {}),
    },
    // grpc-js sends the name override as the authority too (grpc.default_authority).
    authority: tls?.serverNameOverride || undefined,
    maxReceiveBytes: messageLength('grpc.max_receive_message_length', DEFAULT_MAX_RECEIVE_BYTES),
    maxSendBytes: messageLength('grpc.max_send_message_length', Number.POSITIVE_INFINITY),
    keepaliveMs: number('grpc.keepalive_time_ms', 30_000),
    keepaliveTimeoutMs: number('grpc.keepalive_timeout_ms', 20_000),
    // The SDK's default (1): a dead connection is noticed between calls, not by the next call's deadline.
    keepaliveWithoutCalls: number('grpc.keepalive_permit_without_calls', 0) === 1,
  };
}

/**
 * A protobufjs service transport on the channel: the request's metadata is what the SDK's own transport sends (the
 * API key as `authorization`, the connection's static metadata, the call context's), its deadline and abort signal
 * the call context's.
 */
function rpcOverChannel(
  channel: GrpcChannel,
  serviceName: string,
  callContextStorage: CallContextStorage,
  staticMetadata: Record<string, unknown>,
  apiKeyRef: ApiKeyRef,
): RpcImpl {
  const fixed = headersOf(staticMetadata);
  const paths = new Map<string, string>();
  return (method, request, callback) => {
    const context = callContextStorage.getStore();
    const apiKey = apiKeyRef.fn?.();
    let metadata: OutgoingHttpHeaders;
    try {
      // The SDK's order: the key first, so a call's own metadata (withApiKey, withMetadata) overrides it.
      metadata = { ...(apiKey ? headersOf({ authorization: `Bearer ${apiKey}` }) : {}), ...fixed, ...(context?.metadata ? headersOf(context.metadata) : {}) };
    } catch (error) {
      return callback(error as Error);
    }
    let path = paths.get(method.name);
    if (path === undefined) paths.set(method.name, (path = `/${serviceName}/${method.name}`));
    const deadline = context?.deadline instanceof Date ? context.deadline.getTime() : context?.deadline;
    channel.unary(path, metadata, request, { deadline, signal: context?.abortSignal }, callback as (error: GrpcCallError | null, message?: Buffer) => void);
  };
}

const METADATA_KEY = /^[0-9a-z_.-]+$/;
const METADATA_VALUE = /^[\x20-\x7e]*$/;
/** Headers HTTP/2 forbids on a request, and those the transport sets itself. */
const RESERVED_KEYS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'content-type', 'user-agent', 'grpc-timeout']);

/**
 * gRPC metadata as HTTP/2 headers: names in lower case, binary values (`-bin`) in base64. A name or value gRPC does not
 * allow is refused with a TypeError naming it, as grpc-js's Metadata refuses it, before anything is sent.
 */
export function headersOf(metadata: Record<string, unknown>): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(metadata)) {
    const key = name.toLowerCase();
    if (!METADATA_KEY.test(key) || RESERVED_KEYS.has(key)) throw new TypeError(`gRPC metadata key "${name}" is not allowed`);
    if (key.endsWith('-bin')) {
      headers[key] = (value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(String(value))).toString('base64');
      continue;
    }
    const text = String(value);
    if (!METADATA_VALUE.test(text)) throw new TypeError(`gRPC metadata "${key}" has a value with characters outside printable ASCII`);
    headers[key] = text;
  }
  return headers;
}
