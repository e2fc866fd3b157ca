import type { ZodType } from 'zod';
import type { DeprecationDoc, ResponseDoc } from './route.js';
import { ErrorBodySchema } from './schemas/common.js';
import { ResetResponseSchema } from './schemas/operations.js';
import { WorkflowResultSchema } from './schemas/results.js';

/** Building blocks of the route table's `responses`, so each route lists only what is particular to it. */

/** docs/api.md: the deprecated stop and reset are scheduled for removal after 2026-07-16. */
export const DEPRECATED_ENDPOINT_SUNSET = 'Thu, 16 Jul 2026 23:59:59 GMT';

/**
 * The `Deprecation` header of the latest-run stop and reset and of the legacy result shape (RFC 9745): when they were
 * deprecated, 2026-01-01T00:00:00Z, as a Structured Field Date (`@` and epoch seconds). The RFC wants it no later than
 * the Sunset.
 */
export const DEPRECATION_HEADER = `@${Date.UTC(2026, 0, 1) / 1000}`;

export const success = <S extends ZodType>(schema: S, description: string, extra: Omit<Partial<ResponseDoc>, 'schema'> = {}): ResponseDoc<S> => ({
  description,
  schema,
  ...extra,
});
/** An error answer: thrown by the handler (errors.ts), so it adds nothing to what the handler may return. */
export const failure = (description: string): ResponseDoc<typeof ErrorBodySchema> => ({ description, schema: ErrorBodySchema });

export const NOT_FOUND = failure('WorkflowNotFoundError: no such workflow execution or run.');
export const NOT_COMPLETED = failure('WorkflowNotCompletedError: the run is still open.');
export const NOT_COMPLETED_AFTER_WAIT: ResponseDoc<typeof ErrorBodySchema> = {
  ...failure('WorkflowNotCompletedError: the run is still open (with `wait`: still open when the wait ended; `Retry-After` says when to ask again).'),
  headers: ['Retry-After'],
};
export const CLOSED = failure('WorkflowClosedError: the run is already closed.');
export const RESULT_OK = success(WorkflowResultSchema, 'The workflow result (version 2, or legacy with `?v=legacy`).', {
  headers: ['Deprecation'],
});

export const deprecatedInFavourOf = (successor: string): DeprecationDoc => ({ successor, sunset: DEPRECATED_ENDPOINT_SUNSET });

export function resetResponses() {
  return {
    200: success(ResetResponseSchema, 'Reset; `runId` is the new run.'),
    404: failure('WorkflowNotFoundError, or StepNotFoundError: the step never ran in that run.'),
    409: failure('StepNotCompletedError: the step was scheduled but did not complete.'),
  };
}
