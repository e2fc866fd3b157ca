import { z } from 'zod';
import { MAX_HISTORY_PAGE_SIZE, MAX_RUN_LIST_LIMIT } from '../../../core/domain/requestBounds.js';
import { CatalogNameSchema, KeyIdSchema, ScheduleIdSchema, RunIdSchema, WorkflowIdSchema } from './common.js';
import { runFilterFields, type RunBodyLimits } from '../../../core/api/wire/requests.js';
import { ResultVersionSchema } from '../../../core/api/wire/results.js';

/*
 * The request bodies are declared once, in core/api/wire (docs/architecture.md). Here is what only HTTP has: path
 * parameters, headers, and query strings, whose numbers arrive as text.
 */
export * from '../../../core/api/wire/requests.js';
export { ResultVersionSchema };

// ---- Path parameters ------------------------------------------------------------------------------------------

export const NoParamsSchema = z.object({});
export const WorkflowParamsSchema = z.object({ id: WorkflowIdSchema });
export const RunParamsSchema = z.object({ id: WorkflowIdSchema, rid: RunIdSchema });

// ---- Request headers -----------------------------------------------------------------------------------------

/** `Idempotency-Key` (docs/idempotency.md): printable ASCII without spaces, as clients generate (UUIDs, hashes). */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces')
  .meta({
    description:
      'Makes the request safe to retry: the same key with the same request joins the first one while it is in flight and gets its answer once it finished (until `Idempotency-Expires`); the same key with another request is 409 IdempotencyKeyReusedError. 1 to 255 printable ASCII characters, no spaces. See docs/idempotency.md.',
  });

// ---- Query parameters -----------------------------------------------------------------------------------------
// A repeated parameter arrives as an array and fails.

/**
 * The query of an endpoint: an unknown parameter is refused, naming it and the ones the endpoint takes. Ignored, a
 * typo widened what the call meant (`/workflow/runs?workflowNmae=x` listed every run).
 */
export function queryParameters<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  const accepted = Object.keys(shape);
  const takes = accepted.length === 0 ? 'takes no query parameters' : `takes ${accepted.join(', ')}`;
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const plural = issue.keys.length > 1 ? 's' : '';
      return `unknown query parameter${plural} ${issue.keys.join(', ')}; this endpoint ${takes}`;
    },
  });
}

export const NoQuerySchema = queryParameters({});

export const ResultQuerySchema = queryParameters({ v: ResultVersionSchema });

/** A number as JSON (and the document's `type: number`) writes it, exponents included: `1.5`, `2e1`, `-1`. */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** The result query with `wait` (long-poll), bounded by RUN_TIMEOUT_MAX_SECONDS like a run-and-wait's `timeout`. */
export function createResultQuerySchema(limits: Pick<RunBodyLimits, 'runTimeoutMaxSeconds'>) {
  return queryParameters({
    v: ResultVersionSchema,
    wait: z
      .preprocess(
        (value) => (typeof value === 'string' && JSON_NUMBER.test(value) ? Number(value) : value),
        z.number({ error: (issue) => (issue.code === 'invalid_type' ? 'must be a number of seconds' : undefined) }).min(0).max(limits.runTimeoutMaxSeconds),
      )
      .optional()
      .meta({ description: `Seconds to wait for an open run to close before answering (long-poll; fractions allowed, at most ${limits.runTimeoutMaxSeconds}). 0 or absent answers at once.` }),
  });
}

const DECIMAL_DIGITS = /^[0-9]{1,15}$/;

/**
 * A whole number in a query string. Plain decimal digits only: `z.coerce.number()` would also take `1e2`, `0x10`
 * and ` 5`, which no client means to send. Documented as an integer.
 */
export function queryInteger(bounds: { min: number; max: number; fallback: number }) {
  return z
    .preprocess(
      (value) => (typeof value === 'string' && DECIMAL_DIGITS.test(value) ? Number(value) : value),
      // Only the type message is replaced: a range failure keeps zod's own "expected number to be <=1000".
      z
        .number({ error: (issue) => (issue.code === 'invalid_type' ? `must be a whole number from ${bounds.min} to ${bounds.max}, in plain digits` : undefined) })
        .int()
        .min(bounds.min)
        .max(bounds.max)
        // zod renders a preprocess by its inner schema in input mode and drops the outer default; restate it there.
        .meta({ default: bounds.fallback }),
    )
    .default(bounds.fallback);
}

export const PageTokenSchema = z.string().min(1).meta({ description: 'The `nextPageToken` of the previous page.' });

export const ListRunsQuerySchema = queryParameters({
  ...runFilterFields,
  startedBy: KeyIdSchema.optional().meta({ description: 'Only runs started with this API key (its id; docs/security.md).' }),
  scheduleId: ScheduleIdSchema.optional().meta({ description: 'Only runs this schedule started (docs/schedules.md).' }),
  limit: queryInteger({ min: 1, max: MAX_RUN_LIST_LIMIT, fallback: 100 }).meta({ description: 'Page size, newest first.' }),
  pageToken: PageTokenSchema.optional(),
});

export const HistoryQuerySchema = queryParameters({
  pageSize: queryInteger({ min: 1, max: MAX_HISTORY_PAGE_SIZE, fallback: 50 }).meta({ description: 'Events per page (JSON form only).' }),
  pageToken: PageTokenSchema.optional().meta({ description: 'Continue after the previous page (JSON form only).' }),
});

export const WorkflowListQuerySchema = queryParameters({ catalog: CatalogNameSchema.optional() });
