import type { ActivityInfo, Aggregations, OutputActivityKind, WorkflowDetails } from '../core/definition/hooks.js';
import type { SerializedFailure } from '../core/domain/run.js';

/** How a run ended, as the run's own code saw it (terminate and run timeouts run no code, so they are not told). */
export type ObservedRunEnd = { status: 'completed' | 'continued_as_new' } | { status: 'failed' | 'cancelled'; error: SerializedFailure };

export interface ObservedAttempt {
  workflowDetails: WorkflowDetails;
  activityInfo: ActivityInfo;
  outputActivityKind: OutputActivityKind;
}

/**
 * What an engine tells the worker side about its runs, the same on both engines: worker hooks (adapters/hooks) are
 * its implementation. Calls never throw and never wait for observers' own work.
 */
export interface RunObserver {
  runStarted(details: WorkflowDetails): void;
  runEnded(details: WorkflowDetails, end: ObservedRunEnd): void;
  /**
   * Runs one attempt of a step's or evaluator's code inside the observer's context (events its code emits, HTTP calls
   * it makes) and reports the attempt's aggregations through `aggregated` before it settles. `failedEarly` rejects when
   * the engine fails the attempt before its code settles (its timeout): the observer then reports the failure at once,
   * and what the code still spends afterwards through `aggregated` again when it settles.
   */
  activityAttempt<T>(
    attempt: ObservedAttempt,
    run: () => Promise<T>,
    aggregated?: (aggregations: Aggregations) => void,
    failedEarly?: Promise<never>,
  ): Promise<T>;
}

/** The observer of a worker without hooks. */
export const silentRunObserver: RunObserver = {
  runStarted: () => {},
  runEnded: () => {},
  activityAttempt: (_attempt, run) => run(),
};
