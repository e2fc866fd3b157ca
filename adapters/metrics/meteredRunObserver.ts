import type { Aggregations } from '../../core/definition/hooks.js';
import type { Metrics } from '../../ports/metrics.js';
import { silentRunObserver, type RunObserver } from '../../ports/runObserver.js';

const NOTHING_REPORTED: Aggregations = { totalCost: 0, httpCalls: 0, tokens: 0 };

/**
 * A worker's RunObserver (its hooks, or none) with every step and evaluator attempt counted: its duration and outcome,
 * and the cost, tokens and HTTP calls the hooks' aggregations report (zero without hooks, which compute none).
 */
export function meteredRunObserver(inner: RunObserver | undefined, metrics: Metrics): RunObserver {
  const observer = inner ?? silentRunObserver;
  return {
    runStarted: (details) => observer.runStarted(details),
    runEnded: (details, end) => observer.runEnded(details, end),
    async activityAttempt(attempt, run, aggregated) {
      const startedAt = performance.now();
      let reported = NOTHING_REPORTED;
      let outcome: 'success' | 'failure' = 'failure';
      try {
        const result = await observer.activityAttempt(attempt, run, (aggregations) => {
          reported = aggregations;
          aggregated?.(aggregations);
        });
        outcome = 'success';
        return result;
      } finally {
        metrics.stepAttempt({
          workflow: attempt.workflowDetails.workflowType,
          step: attempt.activityInfo.name,
          outcome,
          seconds: (performance.now() - startedAt) / 1000,
          ...reported,
        });
      }
    },
  };
}
