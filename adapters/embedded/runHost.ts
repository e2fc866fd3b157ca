import type { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityDefinition } from '../../core/definition/activity.js';
import type { RelatedRun } from '../../core/domain/run.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { RunObserver } from '../../ports/runObserver.js';
import type { Tracing } from '../../ports/tracing.js';
import type { Metrics } from '../../ports/metrics.js';
import type { RunClosing } from './closings.js';
import type { RunExecution } from './runExecution.js';
import type { RunRecord } from './runRecord.js';
import type { TimerRegistry } from './timers.js';

/**
 * Where workflow code is running: the async context the step router reads. `shielded` inside
 * ctx.nonCancellable, where a cancel request does not reach.
 */
export interface RunScope {
  readonly execution: RunExecution;
  readonly shielded: boolean;
}

/** The step attempt whose code is running: where its `progress(fields)` calls go. */
export interface StepAttemptProgress {
  publish(fields: Record<string, unknown>): void;
}

export interface ChildStart {
  workflowName: string;
  catalog: string;
  workflowId: string;
  input: unknown;
  parent: RelatedRun;
  root: RelatedRun;
}

/** What a running workflow needs from the engine around it. */
export interface RunHost {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timers: TimerRegistry;
  /** Spans of runs and step attempts (noTracing when tracing is off). */
  readonly tracing: Tracing;
  /** Where step attempts are counted (noMetrics when metrics are off). */
  readonly metrics: Metrics;
  readonly scopes: AsyncLocalStorage<RunScope>;
  /** Set while step code runs (outside the run's scope), for progress. */
  readonly stepAttempts: AsyncLocalStorage<StepAttemptProgress>;
  /** The internal step that sends a webhook call before a wait. */
  readonly webhookStep: ActivityDefinition;
  /** The hooks of the worker serving `catalog`. */
  observerFor(catalog: string): RunObserver;
  /** Starts a child run; throws the errors a start throws. */
  startChild(start: ChildStart): RunRecord;
  /** The last run of the continue-as-new chain that `run` begins, once it has closed. */
  chainEnd(run: RunRecord): Promise<RunRecord>;
  /** Asks the open run of a child to cancel, if it is still that parent's child. */
  cancelChild(workflowId: string, parentRunId: string): void;
  /** Closes a run (once; later calls for the same run are ignored). */
  close(run: RunRecord, closing: RunClosing): Promise<void>;
}
