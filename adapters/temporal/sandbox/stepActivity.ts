import { ActivityFailure, isCancellation, proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import { CancelledError, StepFailedError } from '../../../core/definition/failures.js';
import type { RetryPolicy } from '../../../core/definition/retry.js';
import { checkJsonInput } from '../../../core/definition/runRules.js';
import type { ActivityKind } from '../../../core/domain/trace.js';
import { activityTypeFor } from '../protocol.js';
import { checkPayload } from './payloadLimit.js';
import { stepFailureOf } from './temporalFailures.js';
import { recordStepTimedOut } from './stepTimeouts.js';

/** What the sandbox knows of a step: everything in its definition except the code and the schemas. */
export interface StepMeta {
  kind: ActivityKind;
  name: string;
  retry: RetryPolicy;
  timeoutMs: number;
}

/** A step as workflow code sees it inside the sandbox: callable like the original, carrying its metadata. */
export type StepStub = ((input: unknown) => Promise<unknown>) & { readonly definition: StepMeta };

/**
 * Called by the generated stub modules (worker/stepStubSource.ts): one per exported step, under the original export
 * name, so a step stays an ordinary value (`items.map(addOne)` works) and only its module is swapped.
 */
export function stepActivity(meta: StepMeta): StepStub {
  const call = (input: unknown) => callStep(meta, input);
  Object.defineProperty(call, 'name', { value: meta.name });
  return Object.assign(call, { definition: Object.freeze({ ...meta }) });
}

/** Schedules the step as activity `<workflowType>#<step>`; its failures reach workflow code as the core's errors. */
export async function callStep(meta: StepMeta, input: unknown): Promise<unknown> {
  const activityType = activityTypeFor(workflowInfo().workflowType, meta.name);
  checkJsonInput(`The input of ${meta.kind} ${meta.name}`, input);
  checkPayload(`The input of step ${activityType}`, input);
  const activities = proxyActivities<Record<string, (input: unknown) => Promise<unknown>>>(activityOptions(meta));
  try {
    return await activities[activityType]!(input);
  } catch (error) {
    if (isCancellation(error)) throw new CancelledError(`Step ${activityType} cancelled`);
    if (error instanceof ActivityFailure) {
      const failure = stepFailureOf(error, meta);
      if (failure.name === 'StepTimeoutError' && error.activityId) recordStepTimedOut(error.activityId, { ...failure, activityType });
      throw new StepFailedError(activityType, failure);
    }
    throw error;
  }
}

export function activityOptions(meta: StepMeta): ActivityOptions {
  const { retry } = meta;
  // Temporal reads a zero interval as "server default" (1 s) and refuses a maximum below the initial interval.
  const initialInterval = Math.max(1, retry.initialIntervalMs);
  return {
    startToCloseTimeout: meta.timeoutMs,
    retry: {
      maximumAttempts: retry.maximumAttempts,
      initialInterval,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: Math.max(initialInterval, retry.maximumIntervalMs),
      nonRetryableErrorTypes: [...retry.nonRetryableErrorNames],
    },
  };
}
