import { workflowInfo } from '@temporalio/workflow';
import type { SerializedFailure } from '../../../core/domain/run.js';

/**
 * Step calls whose last attempt Temporal timed out, per run, told to the worker as the run closes (runSink.ts): the
 * worker sees an attempt end only when its function settles, which for a timed-out attempt is later or never, and
 * would trace a late return as the step's output. Keyed by run id, so runs sharing this module cannot mix.
 */
const timedOutByRun = new Map<string, Record<string, SerializedFailure>>();
/** A run evicted from the worker's cache before it closed leaves its entry: a bound keeps such entries few. */
const MAX_RUNS = 1000;

/** The step call `activityId` of the running run failed because its last attempt timed out, with `failure`. */
export function recordStepTimedOut(activityId: string, failure: SerializedFailure): void {
  const { runId } = workflowInfo();
  let steps = timedOutByRun.get(runId);
  if (!steps) {
    steps = {};
    timedOutByRun.set(runId, steps);
    if (timedOutByRun.size > MAX_RUNS) timedOutByRun.delete(timedOutByRun.keys().next().value!);
  }
  steps[activityId] = failure;
}

/** The running run's timed-out step calls by activity id, forgotten here; undefined when none timed out. */
export function takeStepsTimedOut(): Record<string, SerializedFailure> | undefined {
  const { runId } = workflowInfo();
  const steps = timedOutByRun.get(runId);
  timedOutByRun.delete(runId);
  return steps;
}
