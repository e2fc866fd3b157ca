import { z } from 'zod';
import { AnyJsonSchema, TerminalStatusSchema, WorkflowIdSchema } from './common.js';

/** Spec: serialized workflow error; extra properties allowed. */
export const SerializedFailureSchema = z
  .looseObject({
    name: z.string().meta({ description: 'Original error class name.' }),
    message: z.string(),
    activityType: z.string().optional().meta({ description: 'workflow#step; omitted when no activity failed.' }),
  })
  .meta({ title: 'SerializedWorkflowError' });

/** Spec: each destination is omitted when unavailable, never null. */
export const TraceInfoV2Schema = z
  .strictObject({
    local: z.string().optional().meta({ description: 'Absolute path of the local trace file.' }),
    remote: z.string().optional().meta({ description: 'Remote location, e.g. an object-store URI.' }),
  })
  .meta({ title: 'TraceInfoV2' });

const ResultRunIdSchema = z.string().nullable().meta({ description: 'Run id of this execution.' });

export const WorkflowResultV2Schema = z
  .strictObject({
    v: z.literal('2'),
    workflowId: WorkflowIdSchema,
    runId: ResultRunIdSchema,
    status: TerminalStatusSchema,
    input: AnyJsonSchema.meta({ description: 'Original input; null if unavailable.' }),
    output: AnyJsonSchema.meta({ description: 'Direct workflow output; null if no output.' }),
    trace: TraceInfoV2Schema.nullable(),
    error: SerializedFailureSchema.nullable(),
  })
  .meta({ title: 'WorkflowResultV2', description: 'The result, version 2: the default (`?v=2` or no `v`). `v` is always `"2"`.' });

export const LegacyErrorDetailsSchema = z
  .strictObject({
    message: z.string().nullable(),
    name: z.string().nullable(),
    retryable: z.boolean().nullable(),
    activityId: z.string().nullable().meta({ description: 'workflow#step; null if no activity failed.' }),
    cause: z.record(z.string(), z.unknown()).nullable().meta({ description: 'Sanitized cause chain, no stack.' }),
  })
  .meta({ title: 'LegacyErrorDetails' });

export const WorkflowResultLegacySchema = z
  .strictObject({
    workflowId: WorkflowIdSchema,
    runId: ResultRunIdSchema,
    status: TerminalStatusSchema,
    input: AnyJsonSchema,
    output: AnyJsonSchema.meta({ description: 'null if the workflow failed.' }),
    trace: z.strictObject({ destinations: TraceInfoV2Schema }).nullable(),
    error: z.string().nullable().meta({ description: 'Message when failed, else null.' }),
    errorDetails: LegacyErrorDetailsSchema.nullable(),
  })
  .meta({ title: 'WorkflowResultLegacy', deprecated: true, description: 'The deprecated result shape, answered only for `?v=legacy` (with a `Deprecation` header). It has no `v`.' });

/**
 * Exactly one of the two (`oneOf` in the document): version 2 always has `v: "2"`, which the strict legacy shape
 * never has, so a generator tells them apart by that field.
 */
export const WorkflowResultSchema = z
  .xor([WorkflowResultV2Schema, WorkflowResultLegacySchema])
  .meta({
    title: 'WorkflowResult',
    description:
      'Version 2 (`WorkflowResultV2`, with `v: "2"`) by default; the deprecated legacy shape (`WorkflowResultLegacy`, no `v`) only with `?v=legacy`.',
  });

/** Which of the two result shapes a read or a run-and-wait answers (`?v=`). */
export const ResultVersionSchema = z
  .enum(['2', 'legacy'])
  .default('2')
  .meta({ description: 'Result shape. `legacy` is deprecated and answered with a `Deprecation` header.' });
