import type { Client } from '@temporalio/client';
import { HISTORY_PAGE_MAX_BYTES } from '../../../core/domain/history.js';
import type { Clock } from '../../../ports/clock.js';
import type { Logger } from '../../../ports/logger.js';
import type { ClaimCheckCodec } from '../claimCheckCodec.js';

export interface TemporalEngineOptions {
  /** A client on a connection made by connectTemporal (adapters/temporal/connection.ts). */
  client: Client;
  /** The Temporal namespace every call goes to (TEMPORAL_NAMESPACE). */
  namespace: string;
  logger: Logger;
  clock: Clock;
  /** How long a catalog's description is reused: starts read it on every request. @default 1000 */
  catalogCacheMs?: number;
  /**
   * A catalog is available only while a worker polled its task queue this recently (pollers linger in Temporal's
   * list for minutes after a worker died). @default 90000
   */
  workerLivenessMs?: number;
  /** Deadline of every ordinary call to Temporal (long polls have their own). @default 10000 */
  rpcTimeoutMs?: number;
  /**
   * Key that seals page tokens. Give every API server behind one load balancer the same key, so a token issued by
   * one is accepted by the others. @default a random key per engine (tokens last as long as the process)
   */
  pageTokenSecret?: string;
  /**
   * Large payloads through S3 (docs/large-payloads.md): the codec the client was built with (TemporalEngine.connect
   * registers it), so payloads read straight from history are resolved too. Absent: no claim checks.
   */
  claimChecks?: ClaimCheckCodec;
  /**
   * Without claimChecks: the largest input Temporal takes (TEMPORAL_MAX_PAYLOAD_BYTES); a larger one is refused with
   * PayloadTooLargeError (413) before anything starts. Ignored with claimChecks. Absent: no check.
   */
  maxPayloadBytes?: number;
  /**
   * While a history stream follows a run with a running step, how often it reads the step's progress (a describe;
   * docs/progress.md). @default 1000
   */
  progressPollMs?: number;
  /**
   * About how many bytes of events, as JSON, a history page holds (HISTORY_PAGE_MAX_BYTES), and how much a history
   * stream reads ahead of its client. @default 1048576 (1 MiB)
   */
  historyPageMaxBytes?: number;
}

type OptionalEngineOptions = 'pageTokenSecret' | 'claimChecks' | 'maxPayloadBytes';
export type CheckedTemporalEngineOptions = Required<Omit<TemporalEngineOptions, OptionalEngineOptions>> &
  Pick<TemporalEngineOptions, OptionalEngineOptions>;

export const DEFAULT_CATALOG_CACHE_MS = 1000;
export const DEFAULT_WORKER_LIVENESS_MS = 90_000;
export const DEFAULT_RPC_TIMEOUT_MS = 10_000;
export const DEFAULT_PROGRESS_POLL_MS = 1000;

/** Fails fast, naming the option that is wrong (every adapter checks its options in its constructor). */
export function checkOptions(options: TemporalEngineOptions): CheckedTemporalEngineOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('TemporalEngine: options must be an object');
  const {
    client,
    namespace,
    logger,
    clock,
    catalogCacheMs = DEFAULT_CATALOG_CACHE_MS,
    workerLivenessMs = DEFAULT_WORKER_LIVENESS_MS,
    rpcTimeoutMs = DEFAULT_RPC_TIMEOUT_MS,
    pageTokenSecret,
    claimChecks,
    maxPayloadBytes,
    progressPollMs = DEFAULT_PROGRESS_POLL_MS,
    historyPageMaxBytes = HISTORY_PAGE_MAX_BYTES,
  } = options;
  if (typeof client !== 'object' || client === null || typeof client.workflow?.start !== 'function' || !client.workflowService) {
    throw new TypeError('TemporalEngine: options.client must be a @temporalio/client Client');
  }
  if (typeof namespace !== 'string' || namespace.length === 0) throw new TypeError('TemporalEngine: options.namespace must be a non-empty string');
  requireMethods('logger', logger, ['info', 'warn', 'error']);
  requireMethods('clock', clock, ['now', 'setTimer']);
  requireDuration('catalogCacheMs', catalogCacheMs, 0);
  requireDuration('workerLivenessMs', workerLivenessMs, 1);
  requireDuration('rpcTimeoutMs', rpcTimeoutMs, 1);
  // Never 0: a follower must not describe the run in a tight loop.
  requireDuration('progressPollMs', progressPollMs, 50);
  if (pageTokenSecret !== undefined && (typeof pageTokenSecret !== 'string' || pageTokenSecret.length < 16)) {
    throw new TypeError('TemporalEngine: options.pageTokenSecret must be a string of at least 16 characters when given');
  }
  if (claimChecks !== undefined && typeof claimChecks?.resolveIn !== 'function') {
    throw new TypeError('TemporalEngine: options.claimChecks must be a ClaimCheckCodec when given');
  }
  if (maxPayloadBytes !== undefined && !(Number.isSafeInteger(maxPayloadBytes) && maxPayloadBytes > 0)) {
    throw new RangeError(`TemporalEngine: options.maxPayloadBytes must be a positive integer when given, got ${String(maxPayloadBytes)}`);
  }
  if (!(Number.isSafeInteger(historyPageMaxBytes) && historyPageMaxBytes > 0)) {
    throw new RangeError(`TemporalEngine: options.historyPageMaxBytes must be a positive integer, got ${String(historyPageMaxBytes)}`);
  }
  return { client, namespace, logger, clock, catalogCacheMs, workerLivenessMs, rpcTimeoutMs, pageTokenSecret, claimChecks, maxPayloadBytes, progressPollMs, historyPageMaxBytes };
}

function requireMethods(option: string, value: unknown, methods: string[]): void {
  const missing = methods.filter((method) => typeof (value as Record<string, unknown> | null)?.[method] !== 'function');
  if (missing.length > 0) {
    throw new TypeError(`TemporalEngine: options.${option} must have ${methods.map((m) => `${m}()`).join(', ')} (missing ${missing.join(', ')})`);
  }
}

function requireDuration(option: string, value: unknown, minimum: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum) {
    throw new RangeError(`TemporalEngine: options.${option} must be a number of milliseconds >= ${minimum}, got ${String(value)}`);
  }
}
