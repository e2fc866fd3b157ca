import type { WorkflowEngine } from '../../ports/engine.js';
import type { TraceStores } from '../../ports/traceStore.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/ids.js';
import type { Digest } from '../../ports/digest.js';
import type { Logger } from '../../ports/logger.js';
import type { Metrics } from '../../ports/metrics.js';
import type { OutboundAllowlist } from '../domain/outboundAddress.js';

/** The ports every use case draws from. Each use case takes only what it needs (a Pick of this). */
export interface CoreDeps {
  engine: WorkflowEngine;
  traces: TraceStores;
  clock: Clock;
  ids: IdGenerator;
  digest: Digest;
  logger: Logger;
  /** Catalog used when a request names none (DEFAULT_CATALOG). */
  defaultCatalog: string;
  /** How long the answer to a request with an Idempotency-Key is kept after it is final (IDEMPOTENCY_RETENTION_SECONDS). */
  idempotencyRetentionMs: number;
  /**
   * Aborted shortly before the server closes its connections (composition: near the end of SHUTDOWN_GRACE_MS).
   * Run-and-wait calls then stop waiting and answer at once, so no caller loses its answer to a closed socket.
   */
  shutdownSignal?: AbortSignal;
  /** CALLBACK_RETRY_MAX_SECONDS: how long a run's callback is retried after the close. @default an hour */
  callbackRetryForMs?: number;
  /** Counts what only the use cases see (idempotency hits). @default noMetrics */
  metrics?: Metrics;
  /** OUTBOUND_ALLOWLIST: a callbackUrl naming an address the rules refuse is a 400 unless this opens it. @default empty */
  outboundAllowlist?: OutboundAllowlist;
  /**
   * Who the calls act for: the API key's id (core/domain/access.ts). Recorded as a run's `startedBy` and as the
   * `identity` of every change (docs/security.md, Who did what); absent when no key acts (authentication off, or the
   * embedding application calling the use cases itself).
   */
  actor?: string;
}
