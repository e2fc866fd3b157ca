import type { CatalogDescription } from '../core/domain/catalog.js';
import type { HistoryEvent, HistoryPage } from '../core/domain/history.js';
import type { ProgressEvent } from '../core/domain/progress.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../core/domain/run.js';
import type { RunStatus } from '../core/domain/status.js';
import type { RequestIdempotency } from '../core/domain/idempotency.js';
import type { ScheduleEngine } from './schedules.js';
import { token } from './token.js';

export interface ListRunsQuery {
  workflowName?: string;
  catalog?: string;
  status?: RunStatus;
  /** Only runs started by this API key (RunDescription.startedBy). */
  startedBy?: string;
  /** Only runs this schedule started (RunDescription.scheduleId). */
  scheduleId?: string;
  /** 1..1000 */
  limit: number;
  pageToken?: string;
}

export interface RunList {
  /** Newest first. */
  runs: RunDescription[];
  nextPageToken: string | null;
}

export interface HistoryPageQuery {
  /** 1..200 */
  pageSize: number;
  pageToken?: string;
}

/**
 * One item of a followed run: a history event, or a progress event of a running step. `runningSteps` (the
 * stepEventIds of the steps that have not ended, as far as the items so far tell) lets the stream forget the
 * progress positions of steps that ended.
 */
export type RunStreamItem =
  | { kind: 'history'; event: HistoryEvent }
  | { kind: 'progress'; progress: ProgressEvent; runningSteps: readonly number[] };

export interface AwaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Follow continue-as-new to the last run of the chain (run-and-wait, the id form of a result). False: resolve
   * with this run's own outcome when it closes, `continued_as_new` included (the pinned form). @default true
   */
  followChain?: boolean;
  /**
   * The awaited run as its start described it, when the caller holds that. An engine that learns from the run's
   * closing event all a closed run's description adds (Temporal: the trace location the worker reports on a completed
   * run's result) answers with it instead of describing the closed run again.
   */
  startedRun?: RunDescription;
}

/**
 * What an engine does with the Idempotency-Key of a feedback, terminate or reset (docs/idempotency.md). The API
 * process answers retries it sees itself in any case (core/idempotency/localAnswers.ts); the engine's part is the
 * retries that reach another API process, or the same one after a restart.
 * - `kept-by-engine`: the engine keeps the key with what the request did (Temporal: the signal's header, the
 *   terminate's details, the reset's reason and request id; the durable embedded engine: a record in its store,
 *   written in the commit of what the request did), so a retry it already carried out answers as the first time from
 *   any API process, and the same key with another fingerprint is IdempotencyKeyReusedError. The core hands it the
 *   key's RequestIdempotency.
 * - `kept-by-api-process`: the engine keeps no key; the core never hands it one. Enough for an engine that lives and
 *   ends with its one API process (the embedded engine in memory): no other process can reach its runs.
 * Starts are not covered here: every engine keeps a keyed start's record with its run (StartCommand.idempotency).
 */
export type ControlKeys = 'kept-by-engine' | 'kept-by-api-process';

/**
 * The workflow engine as the core needs it. Implementations: adapters/embedded (in-process) and adapters/temporal.
 *
 * Errors: implementations throw the core's named errors (WorkflowNotFoundError for an unknown id or run,
 * WorkflowClosedError, WorkflowAlreadyStartedError, StepNotFoundError, StepNotCompletedError, WorkflowNotCompletedError,
 * ValidationError for a bad page token, EngineError / EngineUnavailableError for the engine itself); nothing
 * engine-specific crosses this port.
 */
export interface WorkflowEngine {
  /** `embedded` (the embedded engine on its durable store), `memory` or `temporal`: reported by /ready. */
  readonly kind: string;
  /** Who keeps the Idempotency-Key of a feedback, terminate or reset; decides whether `idempotency` is passed below. */
  readonly controlKeys: ControlKeys;

  /** Starts a run. The catalog and workflow type have already been checked by the caller. */
  start(command: StartCommand): Promise<RunDescription>;
  /**
   * Waits for the run to close, following continue-as-new to the last run of the chain unless `followChain` is
   * false. Resolves `undefined` when `timeoutMs` passes first (the run keeps going).
   */
  awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined>;
  describe(run: RunRef): Promise<RunDescription>;
  /** The outcome of a closed run; WorkflowNotCompletedError while it is open. */
  getOutcome(run: RunRef): Promise<RunOutcome>;
  /** The input the pinned run was started with. */
  getInput(run: PinnedRunRef): Promise<unknown>;
  historyPage(run: RunRef, query: HistoryPageQuery): Promise<{ run: RunDescription; page: HistoryPage }>;
  /**
   * Every event after `afterEventId`, then new ones as they happen; ends after the run's closing event. Stops early
   * when `signal` aborts. Must not busy-poll. In between, the progress of running steps (docs/progress.md): a step's
   * progress only after its `step_scheduled` event and before its end. Progress may come again (the caller drops
   * what it sent by `seq`); after a history event it is what came after that event as far as the engine can tell.
   */
  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem>;
  listRuns(query: ListRunsQuery): Promise<RunList>;

  /*
   * `identity` of the four changes below: the id of the API key making it, recorded in the history event of the change
   * (`attributes.identity`; on Temporal, the request's own identity field: temporal/engine/identity.ts). Absent when
   * no key acts.
   */
  /** Requests cancellation (cleanup allowed); resolves with the run it was sent to. */
  cancel(run: RunRef, identity?: string): Promise<RunDescription>;
  /*
   * `idempotency` (a request with an Idempotency-Key) is only ever passed to an engine whose `controlKeys` is
   * `kept-by-engine`, which keeps it with what the request did (see ControlKeys).
   */
  terminate(run: RunRef, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<RunDescription>;
  /** Resets the run to just after the last completion of `stepName`; returns the new run. */
  reset(run: RunRef, stepName: string, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef>;
  /** Delivers a webhook reply to the latest run of `workflowId`, buffered until the run waits for it. */
  deliverFeedback(workflowId: string, payload: unknown, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef>;

  /** A catalog's published contents, or `undefined` when the engine has never seen it. */
  describeCatalog(catalog: string): Promise<CatalogDescription | undefined>;
  /** Names of every catalog that publishes a workflow type of this name. */
  catalogsWithWorkflow(workflowName: string): Promise<string[]>;

  /** The schedules the engine keeps and fires (ports/schedules.ts). */
  readonly schedules: ScheduleEngine;

  /** Resolves when the engine answers a cheap call; rejects otherwise. Honors `signal`. */
  health(signal: AbortSignal): Promise<void>;
}

export const WORKFLOW_ENGINE = token<WorkflowEngine>('WorkflowEngine');
