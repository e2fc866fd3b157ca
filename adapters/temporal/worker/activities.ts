import { Context } from '@temporalio/activity';
import type { ActivityDefinition } from '../../../core/definition/activity.js';
import { serializeFailure, stepTimedOut } from '../../../core/definition/failures.js';
import { isRetryableFailure } from '../../../core/definition/retry.js';
import { runActivity, stepOutputNotJson } from '../../../core/definition/runActivity.js';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { Aggregations } from '../../../core/definition/hooks.js';
import type { RunObserver } from '../../../ports/runObserver.js';
import { noMetrics, type Metrics } from '../../../ports/metrics.js';
import { meterStepAttempt } from '../../metrics/stepAttemptMeter.js';
import { activityTypeFor, payloadLimitMessage, RESULT_TOO_LARGE_ERROR } from '../protocol.js';
import { stepAttemptFailure } from './activityFailure.js';
import { thrownNonRetryable } from '../../../core/definition/thrownValues.js';
import type { HeartbeatProgress } from './heartbeatProgress.js';
import type { TraceCollector } from './traceCollector.js';
import type { WorkflowDetailsCarrier } from './workflowDetailsCarrier.js';

export type ActivityFunction = (input: unknown) => Promise<unknown>;

export interface ActivityRegistration {
  workflows: readonly WorkflowDefinition<any, any>[];
  /** Step name → definition, as bundleCatalog found them. */
  steps: ReadonlyMap<string, ActivityDefinition>;
  /** The internal `webhook` step (webhookActivity.ts). */
  webhookStep: ActivityDefinition;
  traces: TraceCollector;
  /** Where the attempts' `progress(fields)` calls go: heartbeats. */
  progress: HeartbeatProgress;
  /** The worker's hooks, and where an attempt finds its run's workflowDetails. Absent for a worker without hooks. */
  hooks?: { observer: RunObserver; details: WorkflowDetailsCarrier };
  /**
   * TEMPORAL_MAX_PAYLOAD_BYTES when the worker has no claim-check store: a larger step result fails the step for good
   * (ResultTooLargeError) instead of its completion being refused by Temporal and the attempt timing out again and again.
   */
  maxPayloadBytes?: number;
  /** Where step attempts are counted, with the hooks' aggregations (docs/operations.md, Metrics). @default none */
  metrics?: Metrics;
}

/**
 * Every activity type a workflow of this catalog can schedule: `<workflow>#<step>` for every workflow and every step
 * the bundle saw (a step module may be reached from any workflow), plus `<workflow>#webhook`.
 */
export function catalogActivities(registration: ActivityRegistration): Record<string, ActivityFunction> {
  const activities: Record<string, ActivityFunction> = {};
  const steps = [...registration.steps.values(), registration.webhookStep];
  for (const workflow of registration.workflows) {
    for (const step of steps) activities[activityTypeFor(workflow.name, step.name)] = stepAttempt(workflow.name, step, registration);
  }
  return activities;
}

/** Fails with every activity type a workflow can schedule that has no implementation, by name. */
export function assertEveryStepRegistered(registration: Omit<ActivityRegistration, 'traces' | 'hooks' | 'progress' | 'metrics'>, activities: Record<string, unknown>): void {
  const steps = [...registration.steps.keys(), registration.webhookStep.name];
  const missing = registration.workflows.flatMap((workflow) =>
    steps.map((step) => activityTypeFor(workflow.name, step)).filter((type) => typeof activities[type] !== 'function'),
  );
  if (missing.length > 0) throw new Error(`these steps can be called but are not registered as activities: ${missing.join(', ')}`);
}

/**
 * One attempt of a step, as a Temporal activity: core runActivity inside the worker's hooks (when it has any), traced
 * per run with the attempt's aggregations, failures as ApplicationFailure.
 */
function stepAttempt(
  workflowName: string,
  definition: ActivityDefinition,
  { traces, hooks, progress, maxPayloadBytes, metrics = noMetrics }: Pick<ActivityRegistration, 'traces' | 'hooks' | 'progress' | 'maxPayloadBytes' | 'metrics'>,
): ActivityFunction {
  const labels = { workflow: workflowName, step: definition.name };
  return async (input) => {
    const context = Context.current();
    const { info } = context;
    const attemptEnded = traces.attemptStarted({
      runId: info.workflowExecution?.runId ?? '',
      activityId: info.activityId,
      name: definition.name,
      kind: definition.kind,
      input,
      attempt: info.attempt,
    });
    let aggregations: Aggregations | undefined;
    // Counted where the attempt's fate is decided: a result refused for its size fails the attempt its function completed.
    const meter = meterStepAttempt(metrics, labels);
    const startedAt = performance.now();
    // An attempt whose function settles after its time limit was timed out by Temporal meanwhile (within the server's
    // timer slack): traced and counted as that timeout, as the embedded engine decides it at the limit, never as the
    // late result (a stop during the retry wait that follows would leave it looking completed).
    const timedOut = (): boolean => {
      if (performance.now() - startedAt <= definition.timeoutMs) return false;
      meter.failed();
      attemptEnded({ error: { ...stepTimedOut(info.activityType, info.attempt, definition.timeoutMs), activityType: info.activityType } }, aggregations);
      return true;
    };
    try {
      const workflowDetails = hooks ? await hooks.details.detailsOf(context) : undefined;
      const run = (): Promise<unknown> => progress.run(context, () => runActivity(definition, input));
      const output = await (hooks && workflowDetails
        ? hooks.observer.activityAttempt(
            {
              workflowDetails,
              activityInfo: { activityId: info.activityId, activityType: info.activityType, name: definition.name, attempt: info.attempt },
              outputActivityKind: definition.kind,
            },
            run,
            (measured) => {
              aggregations = measured;
              meter.report(measured);
            },
          )
        : run());
      if (timedOut()) return output;
      if (maxPayloadBytes !== undefined) checkStepResultSize(definition, output, maxPayloadBytes);
      meter.succeeded();
      attemptEnded({ output }, aggregations);
      return output;
    } catch (error) {
      if (timedOut()) throw stepAttemptFailure(error);
      meter.failed();
      const failure = serializeFailure(error);
      // As the run's result says it (sandbox/temporalFailures.ts stepFailureOf) and the embedded engine's trace.
      const retryable = isRetryableFailure(definition.retry, { name: failure.name, nonRetryable: thrownNonRetryable(error) });
      attemptEnded({ error: { ...failure, retryable, activityType: info.activityType } }, aggregations);
      throw stepAttemptFailure(error);
    }
  };
}

function checkStepResultSize(definition: Pick<ActivityDefinition, 'kind' | 'name'>, output: unknown, maxPayloadBytes: number): void {
  let json: string | undefined;
  try {
    json = JSON.stringify(output);
  } catch (error) {
    throw stepOutputNotJson(definition, error);
  }
  const bytes = Buffer.byteLength(json ?? '');
  if (bytes <= maxPayloadBytes) return;
  // Non-retryable: the next attempt would return as much again.
  throw Object.assign(new Error(payloadLimitMessage(`step ${definition.name}`, bytes, maxPayloadBytes)), { name: RESULT_TOO_LARGE_ERROR, nonRetryable: true });
}
