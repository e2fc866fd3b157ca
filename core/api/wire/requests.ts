import { z } from 'zod';
import {
  AnyJsonSchema,
  CallbackUrlSchema,
  CatalogNameSchema,
  engineText,
  JsonObjectSchema,
  StatusFilterSchema,
  WorkflowIdSchema,
  WorkflowNameSchema,
} from './common.js';

/* The request bodies, as validated on the way in. */

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

/** The filter of GET /workflow/runs that the bulk operations take too. */
export const runFilterFields = {
  workflowName: WorkflowNameSchema.optional(),
  catalog: CatalogNameSchema.optional(),
  status: StatusFilterSchema.optional(),
};

const bulkFilterFields = {
  ...runFilterFields,
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
    ...runFilterFields,
    dryRun: z.boolean().default(false).meta({ description: 'List the matching runs and start nothing.' }),
  })
  .meta({ title: 'BulkRerunRequest', description: AT_LEAST_ONE_FILTER, ...AT_LEAST_ONE_FILTER_SCHEMA });
