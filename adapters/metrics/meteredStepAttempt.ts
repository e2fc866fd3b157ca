import type { Aggregations } from '../../core/definition/hooks.js';
import { noMetrics, type Metrics } from '../../ports/metrics.js';

const NOTHING_REPORTED: Aggregations = { totalCost: 0, httpCalls: 0, tokens: 0 };

/** Reports a step attempt's aggregations (from the worker's hooks) to whoever counts the attempt. */
export type ReportAggregations = (aggregations: Aggregations) => void;

/**
 * One step (or evaluator) attempt, counted by workflow, step and outcome with its duration, and with the cost, tokens
 * and HTTP calls the hooks' aggregations report (zero without hooks, which compute none). Both engines count their
 * attempts here: the embedded engine in the API process, a Temporal worker in its own (docs/operations.md, Metrics).
 * With noMetrics the attempt runs as it is, not even timed.
 */
export function meteredStepAttempt<T>(
  metrics: Metrics,
  labels: { workflow: string; step: string },
  attempt: (report: ReportAggregations) => Promise<T>,
): Promise<T> {
  if (metrics === noMetrics) return attempt(() => {});
  const startedAt = performance.now();
  let reported = NOTHING_REPORTED;
  const record = (outcome: 'success' | 'failure'): void =>
    metrics.stepAttempt({ ...labels, outcome, seconds: (performance.now() - startedAt) / 1000, ...reported });
  let running: Promise<T>;
  try {
    running = attempt((aggregations) => {
      reported = aggregations;
    });
  } catch (error) {
    record('failure');
    throw error;
  }
  return running.then(
    (output) => {
      record('success');
      return output;
    },
    (error: unknown) => {
      record('failure');
      throw error;
    },
  );
}
