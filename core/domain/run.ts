import type { RunCallbackTarget } from './callback.js';
import type { RunIdempotency } from './idempotency.js';
import type { RunStatus } from './status.js';

/** Points at a workflow execution: a pinned run, or the latest run of the id when `runId` is absent. */
export interface RunRef {
  workflowId: string;
  runId?: string | undefined;
}

export interface PinnedRunRef {
  workflowId: string;
  runId: string;
}

export interface RelatedRun {
  workflowId: string;
  runId: string;
  namespace?: string | undefined;
}

/** What the engine knows about one run, independent of the engine. */
export interface RunDescription {
  workflowId: string;
  runId: string;
  workflowName: string;
  catalog: string;
  status: RunStatus;
  startedAt: Date;
  closedAt: Date | null;
  /** First run of the continue-as-new chain (the run itself when it starts a chain). */
  firstRunId: string;
  continuedFromRunId?: string;
  parent?: RelatedRun;
  root?: RelatedRun;
  /** Set on a run started with an Idempotency-Key. */
  idempotency?: RunIdempotency;
  /**
   * The run this run's chain repeats, when a rerun started it (POST /workflow/{id}/runs/{rid}/rerun). Its
   * continue-as-new runs and resets carry it too, as they carry the callback.
   */
  rerunOf?: PinnedRunRef;
  /**
   * Absolute path of the run's trace file as the worker that closed it wrote it, when the engine's workers run apart
   * from this process and report it (Temporal: the run's memo). Its host, and TRACE_DIR, may be another's.
   */
  localTracePath?: string;
  /** The id of the API key that started the run (docs/security.md, Who did what); absent when no key did. */
  startedBy?: string;
  /** The schedule that started the run (docs/schedules.md); its chain's runs carry it too. */
  scheduleId?: string;
}

/**
 * A failure as it crosses engine boundaries: the original error class name and message, never a stack.
 * `activityType` (workflowName#stepName) is set when the failure originated in a step. A type, not an interface:
 * the wire's schema of it is open to more fields (core/api/wire/results.ts), which only a type alias satisfies.
 */
export type SerializedFailure = {
  name: string;
  message: string;
  activityType?: string | undefined;
  retryable?: boolean | null | undefined;
  cause?: SerializedFailure | undefined;
};

/**
 * The failure of a run terminated because its history outgrew the engine's limit (Temporal: limit.historySize.error,
 * 50 MiB by default; the embedded engine: MEMORY_MAX_HISTORY_BYTES). The run's status is `terminated`.
 */
export const HISTORY_SIZE_LIMIT_EXCEEDED = 'HistorySizeLimitExceededError';

/**
 * The error of a run that ended cancelled (stopped), on both engines and wherever it shows (result, trace, hooks):
 * how the run ended, not which sleep, wait or step the stop interrupted (Temporal records no error for a cancelled
 * run, so there is nothing more to tell on every engine).
 */
export function cancelledRunFailure(): SerializedFailure {
  return { name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' };
}

/** The error of a run that outlived its definition's runTimeoutMs, the same on both engines (for its parent too). */
export function runTimedOutFailure(runTimeoutMs: number): SerializedFailure {
  return { name: 'WorkflowTimedOutError', message: `The run exceeded its run timeout of ${runTimeoutMs} ms` };
}

/** A closed run: its description plus what it produced. */
export interface RunOutcome {
  run: RunDescription;
  output: unknown;
  failure: SerializedFailure | null;
}

export interface StartCommand {
  workflowName: string;
  catalog: string;
  workflowId: string;
  input: unknown;
  /** POST the run's v2 result here when it closes; stored with the run (continue-as-new and reset keep it). */
  callback?: RunCallbackTarget;
  /**
   * Start with an Idempotency-Key: when the latest run of `workflowId` was started with the same `requestId`, the
   * engine returns that run (open or closed) instead of starting another, whatever its own fingerprint.
   */
  idempotency?: RunIdempotency;
  /** A rerun: the run this one repeats, stored with the run (RunDescription.rerunOf). */
  rerunOf?: PinnedRunRef;
  /** The id of the API key starting the run, stored with it (RunDescription.startedBy). */
  startedBy?: string;
  /** The schedule starting the run, stored with it (RunDescription.scheduleId). */
  scheduleId?: string;
}
