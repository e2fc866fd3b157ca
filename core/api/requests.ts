import type { RunStatus } from '../domain/status.js';

/**
 * The options of a call that changes something (start, run-and-wait, feedback, terminate, reset).
 * `idempotencyKey` makes the call safe to retry (docs/idempotency.md): a retry with the same key and request joins
 * the first call or gets its answer until the answer's `expiresAt`; the same key with another request is
 * IdempotencyKeyReusedError.
 */
export interface IdempotencyOptions {
  idempotencyKey?: string | undefined;
}

/** What identifies a workflow to start. `catalog` already has the deprecated `taskQueue` alias folded in. */
export interface StartRequest {
  workflowName: string;
  input: unknown;
  workflowId?: string | undefined;
  catalog?: string | undefined;
  /** Where to POST the v2 result when the run closes (docs/callbacks.md); checked by callbackUrlProblem. */
  callbackUrl?: string | undefined;
}

export interface RunSyncRequest extends StartRequest {
  /** Seconds; validated by the caller against RUN_TIMEOUT_MAX_SECONDS. */
  timeoutSeconds: number;
}

export interface ListRunsRequest {
  workflowName?: string | undefined;
  catalog?: string | undefined;
  status?: RunStatus | undefined;
  /** Only runs started with this API key (its id). */
  startedBy?: string | undefined;
  /** Only runs this schedule started. */
  scheduleId?: string | undefined;
  limit: number;
  pageToken?: string | undefined;
}

export interface HistoryPageRequest {
  pageSize: number;
  pageToken?: string | undefined;
}

export interface HistoryStreamRequest {
  /** Resume after this event id (SSE `Last-Event-ID`). */
  lastEventId?: number | undefined;
  /** Progress already received, per running step (stepEventId → seq), from a progress event's `Last-Event-ID`. */
  progressReceived?: ReadonlyMap<number, number> | undefined;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** GET result with `?wait=`: how long to wait for an open run to close before answering 424. */
export interface ResultWait {
  /** Seconds; absent or 0 answers at once. */
  seconds?: number | undefined;
  /** Aborted when the client goes away: the wait ends with it. */
  signal?: AbortSignal | undefined;
}

/** POST /workflow/runs/terminate and /cancel: the runs GET /workflow/runs would list, acted on together. */
export interface BulkControlRequest {
  /** At least one of them: a bulk operation never means "every run there is". */
  filter: { workflowName?: string | undefined; catalog?: string | undefined; status?: RunStatus | undefined };
  /** Terminate only: the reason recorded with each run. */
  reason?: string | undefined;
  /** Count what the filter matches and act on nothing. */
  dryRun: boolean;
}

/** POST /workflow/{id}/runs/{rid}/rerun: what the new run takes besides the repeated run's workflow and input. */
export interface RerunRequest {
  /** The new run's id; a new one is generated without it (as for a start). */
  workflowId?: string | undefined;
  /** Where to POST the new run's v2 result when it closes (docs/callbacks.md); the repeated run's is not copied. */
  callbackUrl?: string | undefined;
}

/** POST /workflow/runs/rerun: every run GET /workflow/runs would list with the filter, rerun under new ids. */
export interface BulkRerunRequest {
  /** At least one of them, as for bulk terminate and cancel. */
  filter: BulkControlRequest['filter'];
  /** Answer which runs would be rerun and start nothing. */
  dryRun: boolean;
}
