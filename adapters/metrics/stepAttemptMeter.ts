import type { Aggregations } from '../../core/definition/hooks.js';
import { noMetrics, type Metrics } from '../../ports/metrics.js';

const NOTHING_REPORTED: Aggregations = { totalCost: 0, httpCalls: 0, tokens: 0 };

/** Reports a step attempt's aggregations (from the worker's hooks) to whoever counts the attempt. */
export type ReportAggregations = (aggregations: Aggregations) => void;

/**
 * One step (or evaluator) attempt being counted: by workflow, step and outcome with its duration, and with the cost,
 * tokens and HTTP calls the hooks' aggregations report (zero without hooks, which compute none). Both engines count
 * their attempts here: the embedded engine in the API process, a Temporal worker in its own (docs/operations.md,
 * Metrics).
 *
 * The engine calls `succeeded` or `failed` where it decides the attempt's fate, which is not always when the step
 * function settles: an attempt that timed out failed even if its function returns later (or never), and one whose
 * result is too large or not JSON failed although its function returned. Only the first call counts, so a late
 * settle of the function cannot count the attempt again or change its outcome.
 */
export interface StepAttemptMeter {
  /** What the hooks measured; after the outcome was counted, its aggregations are still counted (they were spent). */
  readonly report: ReportAggregations;
  succeeded(): void;
  failed(): void;
}

const NOT_METERED: StepAttemptMeter = { report: () => {}, succeeded: () => {}, failed: () => {} };

/** Starts timing an attempt now. With noMetrics nothing is timed or counted. */
export function meterStepAttempt(metrics: Metrics, labels: { workflow: string; step: string }): StepAttemptMeter {
  if (metrics === noMetrics) return NOT_METERED;
  const startedAt = performance.now();
  let reported = NOTHING_REPORTED;
  let counted = false;
  const count = (outcome: 'success' | 'failure'): void => {
    if (counted) return;
    counted = true;
    metrics.stepAttempt({ ...labels, outcome, seconds: (performance.now() - startedAt) / 1000, ...reported });
  };
  return {
    report: (aggregations) => {
      if (counted) metrics.stepAggregationsAfterOutcome({ ...labels, ...aggregations });
      else reported = aggregations;
    },
    succeeded: () => count('success'),
    failed: () => count('failure'),
  };
}
