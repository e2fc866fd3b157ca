import { z } from 'zod';
import { MAX_HISTORY_PAGE_SIZE, MAX_RUN_LIST_LIMIT } from '../../../core/domain/requestBounds.js';
import { normaliseStatusFilter, RUN_STATUSES } from '../../../core/domain/status.js';
import {
  KeyIdSchema,
  ScheduleIdSchema,
  AnyJsonSchema,
  CallbackUrlSchema,
  CatalogNameSchema,
  engineText,
  JsonObjectSchema,
  RunIdSchema,
  WorkflowIdSchema,
  WorkflowNameSchema,
} from './common.js';

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

export const ResultVersionSchema = z
  .enum(['2', 'legacy'])
  .default('2')
  .meta({ description: 'Result shape. `legacy` is deprecated and answered with a `Deprecation` header.' });

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

const StatusFilterSchema = z
  .string()
  .transform((value, context) => {
    const status = normaliseStatusFilter(value);
    if (status === undefined) {
      context.addIssue({ code: 'custom', message: `status must be one of ${RUN_STATUSES.join(', ')}` });
      return z.NEVER;
    }
    return status;
  })
  .meta({
    description: 'Only runs with this status. `continued` is accepted as the old name of `continued_as_new`.',
    enum: [...RUN_STATUSES, 'continued'],
  });

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
        .number({ error: (issue) => (issue.code === 'invalid_type' ? 'must be a whole number' : undefined) })
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
  workflowName: WorkflowNameSchema.optional(),
  catalog: CatalogNameSchema.optional(),
  status: StatusFilterSchema.optional(),
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

// ---- Bodies ---------------------------------------------------------------------------------------------------

const startFields = {
  workflowName: WorkflowNameSchema,
  workflowId: WorkflowIdSchema.optional().meta({ description: 'Id to use; must not belong to a running execution.' }),
  catalog: CatalogNameSchema.optional(),
  taskQueue: CatalogNameSchema.optional().meta({ deprecated: true, description: 'Deprecated alias of `catalog`; `catalog` wins.' }),
  callbackUrl: CallbackUrlSchema.optional(),
};

export interface RunBodyLimits {
  runTimeoutMaxSeconds: number;
  defaultRunTimeoutSeconds: number;
}

/** Built per app because the timeout bounds are options. */
export function createRunWorkflowBodySchema(limits: RunBodyLimits) {
  return z
    .strictObject({
      ...startFields,
      input: AnyJsonSchema.meta({ description: 'Payload for the workflow (required; any JSON, null included).' }),
      timeout: z
        .number()
        .positive()
        .max(limits.runTimeoutMaxSeconds)
        .default(limits.defaultRunTimeoutSeconds)
        .meta({ description: 'Seconds to wait for completion; fractions allowed.' }),
    })
    .meta({ title: 'RunWorkflowRequest' });
}

export const StartWorkflowBodySchema = z
  .strictObject({
    ...startFields,
    input: JsonObjectSchema.meta({ description: "Must match the workflow's input schema." }),
  })
  .meta({ title: 'StartWorkflowRequest' });

export const FeedbackBodySchema = z
  .strictObject({
    workflowId: WorkflowIdSchema,
    payload: JsonObjectSchema.meta({
      description: "Data the waiting workflow resumes with. Must match the workflow's `feedbackSchema` (GET /workflow/list) when it publishes one.",
    }),
  })
  .meta({ title: 'FeedbackRequest' });

export const ResetBodySchema = z
  .strictObject({
    stepName: engineText({ min: 1 }).meta({ description: 'Completed step after which the run resumes.' }),
    reason: engineText().optional(),
  })
  .meta({ title: 'ResetRequest' });

export const TerminateBodySchema = z
  .strictObject({ reason: engineText().optional() })
  .meta({ title: 'TerminateRequest', description: 'Optional; an empty body is the same as `{}`.' });

export const StopBodySchema = z
  .strictObject({})
  .meta({ title: 'StopRequest', description: 'Optional; no fields. An empty body is the same as `{}`.' });

const bulkFilterFields = {
  workflowName: WorkflowNameSchema.optional(),
  catalog: CatalogNameSchema.optional(),
  status: StatusFilterSchema.optional(),
  dryRun: z.boolean().default(false).meta({ description: 'Count the matching runs and act on none.' }),
};

const AT_LEAST_ONE_FILTER = 'The runs GET /workflow/runs lists with the same filters; at least one of workflowName, catalog and status is required.';
/** The rule above as JSON Schema, for the document (the core enforces it with a named 400). */
const AT_LEAST_ONE_FILTER_SCHEMA = { anyOf: [{ required: ['workflowName'] }, { required: ['catalog'] }, { required: ['status'] }] };

export const BulkTerminateBodySchema = z
  .strictObject({ ...bulkFilterFields, reason: engineText().optional().meta({ description: 'Recorded with each terminated run.' }) })
  .meta({ title: 'BulkTerminateRequest', description: AT_LEAST_ONE_FILTER, ...AT_LEAST_ONE_FILTER_SCHEMA });

export const BulkCancelBodySchema = z.strictObject(bulkFilterFields).meta({ title: 'BulkCancelRequest', description: AT_LEAST_ONE_FILTER, ...AT_LEAST_ONE_FILTER_SCHEMA });

export const RerunBodySchema = z
  .strictObject({
    workflowId: WorkflowIdSchema.optional().meta({
      description: "The new run's id; a new one is generated without it. The repeated run's own id is 409 while that run is open; once it closed, the new run becomes the id's latest run.",
    }),
    callbackUrl: CallbackUrlSchema.optional(),
  })
  .meta({ title: 'RerunRequest', description: "Optional; an empty body is the same as `{}`. The repeated run's callbackUrl is not copied." });

export const BulkRerunBodySchema = z
  .strictObject({
    workflowName: WorkflowNameSchema.optional(),
    catalog: CatalogNameSchema.optional(),
    status: StatusFilterSchema.optional(),
    dryRun: z.boolean().default(false).meta({ description: 'List the matching runs and start nothing.' }),
  })
  .meta({ title: 'BulkRerunRequest', description: AT_LEAST_ONE_FILTER, ...AT_LEAST_ONE_FILTER_SCHEMA });
