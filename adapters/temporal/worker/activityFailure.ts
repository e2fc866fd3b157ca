import { ApplicationFailure } from '@temporalio/common';
import { thrownNonRetryable } from '../../../core/definition/thrownValues.js';
import { serializeFailure } from '../../../core/definition/failures.js';
import type { SerializedFailure } from '../../../core/domain/run.js';

/**
 * What a failed step attempt reports to Temporal: an ApplicationFailure whose `type` is the error's class name
 * (so retry.nonRetryableErrorNames match it), non-retryable when the error says so (NonRetryableError,
 * `nonRetryable = true`), with the cause chain as nested failures. The sandbox turns it back into the same
 * SerializedFailure the embedded engine reports (sandbox/temporalFailures.ts).
 */
export function stepAttemptFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const failure = serializeFailure(error);
  return ApplicationFailure.create({
    type: failure.name,
    message: failure.message,
    nonRetryable: thrownNonRetryable(error),
    ...(failure.cause ? { cause: causeFailure(failure.cause) } : {}),
  });
}

function causeFailure(failure: SerializedFailure): ApplicationFailure {
  return ApplicationFailure.create({
    type: failure.name,
    message: failure.message,
    nonRetryable: failure.retryable === false,
    ...(failure.cause ? { cause: causeFailure(failure.cause) } : {}),
  });
}
