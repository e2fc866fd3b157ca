import type { z } from 'zod';
import type { RerunBodySchema, runFilterFields, StartWorkflowBodySchema } from './wire/requests.js';

/*
 * What the use cases take. A request that is a wire body as validated is inferred from its schema in core/api/wire
 * (docs/architecture.md); the others are what a transport makes of the wire's fields, typed from those fields.
 */

/**
 * The options of a call that changes something (start, run-and-wait, feedback, terminate, reset).
 * `idempotencyKey` makes the call safe to retry (docs/idempotency.md): a retry with the same key and request joins
 * the first call or gets its answer until the answer's `expiresAt`; the same key with another request is
 * IdempotencyKeyReusedError.
 */
export interface IdempotencyOptions {
  idempotencyKey?: string | undefined;
}

export interface RunAndWaitOptions extends IdempotencyOptions {
  /** Aborted when the client goes away: the wait ends with it (the run goes on). */
  signal?: AbortSignal | undefined;
}

type StartBody = z.output<typeof StartWorkflowBodySchema>;

/**
 * What identifies a workflow to start: the start body's fields, with the deprecated `taskQueue` alias already folded
 * into `catalog`. `callbackUrl` is checked by callbackUrlProblem; `input` is any JSON (run-and-wait takes any).
 */
export interface StartRequest extends Pick<StartBody, 'workflowName' | 'workflowId' | 'catalog' | 'callbackUrl'> {
  input: unknown;
}

export interface RunAndWaitRequest extends StartRequest {
  /** Seconds; validated by the caller against RUN_TIMEOUT_MAX_SECONDS. */
  timeoutSeconds: number;
}

/** The filter GET /workflow/runs and the bulk operations share. */
export type RunFilter = z.output<z.ZodObject<typeof runFilterFields>>;

export interface ListRunsRequest extends RunFilter {
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
  filter: RunFilter;
  /** Terminate only: the reason recorded with each run. */
  reason?: string | undefined;
  /** Count what the filter matches and act on nothing. */
  dryRun: boolean;
}

/**
 * POST /workflow/{id}/runs/{rid}/rerun: what the new run takes besides the repeated run's workflow and input (its
 * own `workflowId`, a new one generated without it; its `callbackUrl`, the repeated run's not copied).
 */
export type RerunRequest = z.output<typeof RerunBodySchema>;

/** POST /workflow/runs/rerun: every run GET /workflow/runs would list with the filter, rerun under new ids. */
export interface BulkRerunRequest {
  /** At least one of them, as for bulk terminate and cancel. */
  filter: RunFilter;
  /** Answer which runs would be rerun and start nothing. */
  dryRun: boolean;
}
