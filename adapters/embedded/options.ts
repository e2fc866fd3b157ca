import type { RunCallbackTarget } from '../../core/domain/callback.js';
import { HISTORY_PAGE_MAX_BYTES } from '../../core/domain/history.js';
import type { PinnedRunRef } from '../../core/domain/run.js';
import type { ClosedRunRecord } from '../../core/trace/recordTrace.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/ids.js';
import type { Logger } from '../../ports/logger.js';
import { noTracing, type Tracing } from '../../ports/tracing.js';
import { noMetrics, type Metrics } from '../../ports/metrics.js';
import type { WebhookCall, WebhookSender } from '../../ports/webhookSender.js';
import { NonRetryableError } from '../../core/definition/failures.js';
import type { EngineStore } from './store/engineStore.js';

export interface EmbeddedEngineOptions {
  /**
   * Where runs are kept: a durable store (`openSqliteStore`, exported by flowgate/adapters/embedded, which `flowgate
   * serve` and createFlowgate open on DATA_DIR) survives restarts and the engine resumes the runs it held open; the
   * engine closes it with itself. @default in memory, bounded by maxClosedRuns and
   * maxClosedBytes (runs live and end with the process)
   */
  store?: EngineStore;
  clock: Clock;
  /** Run ids (UUIDs). */
  ids: IdGenerator;
  logger: Logger;
  /**
   * Sends the call of `ctx.waitForWebhook({ url })`. @default none: such a call fails its run at once with
   * `WebhookSenderMissingError`, which says how to give one (a wait without `url` needs no sender)
   */
  webhookSender?: WebhookSender;
  /**
   * Called with the final status, closedAt, result and one trace step per step call of the run.
   * Awaited before a close becomes visible (status, closing event, awaiters), so whoever awaits the outcome can
   * already read what the hook wrote (the trace). Its errors are logged, never fail the run.
   */
  onRunClosed?: (closed: ClosedRunRecord) => Promise<void>;
  /**
   * Called once the close of a run started with a callback is visible (not for a run that continued as new: its
   * chain's last run reports). Not awaited: delivery takes as long as its retries (docs/callbacks.md). The promise it
   * returns settles when the delivery ended; until then a durable store keeps the callback, and a restart delivers it
   * again.
   */
  onRunCallback?: (run: PinnedRunRef, target: RunCallbackTarget) => void | Promise<void>;
  /** Closed runs kept in memory (the memory store); the oldest closed ones are forgotten beyond this. @default 10000 */
  maxClosedRuns?: number;
  /**
   * Bytes the closed runs kept in memory may hold together (each run's history with every payload once, its
   * progress and bookkeeping); the oldest closed ones are forgotten beyond this, as beyond `maxClosedRuns`.
   * @default 268435456 (256 MiB)
   */
  maxClosedBytes?: number;
  /**
   * A run's history as JSON, in bytes: past it the run is terminated with HistorySizeLimitExceededError (Temporal:
   * limit.historySize.error). @default 52428800 (50 MiB)
   */
  maxHistoryBytes?: number;
  /** A warning is logged once a run's history passes this. @default a fifth of maxHistoryBytes (10 MiB) */
  historyWarnBytes?: number;
  /**
   * About how many bytes of events, as JSON, a history page holds (HISTORY_PAGE_MAX_BYTES), and how many a history
   * stream of a stored run reads at a time. @default 1048576 (1 MiB)
   */
  historyPageMaxBytes?: number;
  /**
   * How long a keyed start's answer is kept once final (IDEMPOTENCY_RETENTION_SECONDS): the key records of runs
   * forgotten meanwhile are kept until then. @default 86400000 (24 h)
   */
  idempotencyRetentionMs?: number;
  /**
   * Bytes of Idempotency-Key records of starts (about 1 KiB a key, plus the result it answers with once its run
   * closed); a keyed start that does not fit is IdempotencyStoreFullError. @default 67108864 (64 MiB)
   */
  maxIdempotencyBytes?: number;
  /**
   * A span per run (`RunWorkflow:<name>`) and per step attempt (`RunActivity:<workflow>#<step>`), in the trace of the
   * span active when the run was started (an HTTP request's) or of the run that started it (docs/operations.md,
   * Tracing). @default none
   */
  tracing?: Tracing;
  /**
   * Where step and evaluator attempts are counted, with their duration, outcome and the hooks' aggregations
   * (docs/operations.md, Metrics). @default none
   */
  metrics?: Metrics;
}

export const DEFAULT_MAX_CLOSED_RUNS = 10_000;
export const DEFAULT_MAX_CLOSED_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_HISTORY_BYTES = 50 * 1024 * 1024;
export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;
export const DEFAULT_MAX_IDEMPOTENCY_BYTES = 64 * 1024 * 1024;

/** A workflow called ctx.waitForWebhook({ url }) on an engine given no webhook sender. Not retried: nothing would change. */
export class WebhookSenderMissingError extends NonRetryableError {
  override name = 'WebhookSenderMissingError';
}

/** The sender of an engine made without one: the first call says what is missing instead of failing somewhere else. */
const refusingWebhookSender: WebhookSender = {
  send: async (call: WebhookCall) => {
    throw new WebhookSenderMissingError(
      `workflow ${call.workflowName} called ctx.waitForWebhook({ url: ${JSON.stringify(call.url)} }), but this engine has no webhook sender: ` +
        'give one (the webhookSender option of EmbeddedEngine, createFlowgate or createTestEnvironment)',
    );
  },
};

export type CheckedOptions = Required<Omit<EmbeddedEngineOptions, 'onRunClosed' | 'onRunCallback' | 'store'>> & Pick<EmbeddedEngineOptions, 'onRunClosed' | 'onRunCallback' | 'store'>;

/** Fails fast, naming the option that is wrong. */
export function checkOptions(options: EmbeddedEngineOptions): CheckedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('EmbeddedEngine: options must be an object');
  const { clock, ids, logger, webhookSender, onRunClosed, onRunCallback, tracing = noTracing, metrics = noMetrics, store } = options;
  const { maxClosedRuns = DEFAULT_MAX_CLOSED_RUNS, maxClosedBytes = DEFAULT_MAX_CLOSED_BYTES, maxHistoryBytes = DEFAULT_MAX_HISTORY_BYTES } = options;
  const { historyWarnBytes = Math.floor(maxHistoryBytes / 5), historyPageMaxBytes = HISTORY_PAGE_MAX_BYTES } = options;
  const { idempotencyRetentionMs = DEFAULT_IDEMPOTENCY_RETENTION_MS, maxIdempotencyBytes = DEFAULT_MAX_IDEMPOTENCY_BYTES } = options;
  requireMethods('clock', clock, ['now', 'setTimer']);
  requireMethods('ids', ids, ['uuid']);
  requireMethods('logger', logger, ['info', 'warn', 'error']);
  requireMethods('tracing', tracing, ['startSpan', 'activeTraceparent']);
  requireMethods('metrics', metrics, ['stepAttempt', 'stepAggregationsAfterOutcome']);
  if (store !== undefined) requireMethods('store', store, ['runAdded', 'runChanged', 'commandChanged', 'commit', 'lookup', 'listRuns', 'openRuns']);
  if (webhookSender !== undefined) requireMethods('webhookSender', webhookSender, ['send']);
  if (onRunClosed !== undefined && typeof onRunClosed !== 'function') {
    throw new TypeError('EmbeddedEngine: options.onRunClosed must be a function when given');
  }
  if (onRunCallback !== undefined && typeof onRunCallback !== 'function') {
    throw new TypeError('EmbeddedEngine: options.onRunCallback must be a function when given');
  }
  requirePositiveInteger('maxClosedRuns', maxClosedRuns);
  requirePositiveInteger('maxClosedBytes', maxClosedBytes);
  requirePositiveInteger('maxHistoryBytes', maxHistoryBytes);
  requirePositiveInteger('historyWarnBytes', historyWarnBytes);
  requirePositiveInteger('historyPageMaxBytes', historyPageMaxBytes);
  requirePositiveInteger('idempotencyRetentionMs', idempotencyRetentionMs);
  requirePositiveInteger('maxIdempotencyBytes', maxIdempotencyBytes);
  if (historyWarnBytes > maxHistoryBytes) {
    throw new RangeError(`EmbeddedEngine: options.historyWarnBytes (${historyWarnBytes}) must not exceed options.maxHistoryBytes (${maxHistoryBytes})`);
  }
  return {
    ...{ clock, ids, logger, webhookSender: webhookSender ?? refusingWebhookSender, onRunClosed, onRunCallback, tracing, metrics, store },
    ...{ maxClosedRuns, maxClosedBytes, maxHistoryBytes, historyWarnBytes, historyPageMaxBytes, idempotencyRetentionMs, maxIdempotencyBytes },
  };
}

function requirePositiveInteger(option: string, value: unknown): void {
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw new RangeError(`EmbeddedEngine: options.${option} must be an integer >= 1, got ${String(value)}`);
  }
}

function requireMethods(option: string, value: unknown, methods: string[]): void {
  const missing = methods.filter((method) => typeof (value as Record<string, unknown> | null)?.[method] !== 'function');
  if (missing.length > 0) {
    throw new TypeError(`EmbeddedEngine: options.${option} must have ${methods.map((m) => `${m}()`).join(', ')} (missing ${missing.join(', ')})`);
  }
}
