import { z } from 'zod';
import { runIdProblem, workflowIdProblem } from '../../../core/domain/ids.js';
import { RUN_STATUSES, TERMINAL_STATUSES } from '../../../core/domain/status.js';

/*
 * Building blocks shared by request and response schemas. Every schema that appears as a whole request or response
 * body carries a `title`: the OpenAPI generator turns titled top-level schemas into named components.
 */

/** decisions.md: 1 to 1000 characters, no control characters. The rule itself lives in core/domain/ids.ts. */
export const WorkflowIdSchema = z
  .string()
  .superRefine((value, context) => {
    const problem = workflowIdProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem, params: { reason: 'invalid_workflow_id' } });
  })
  // The check above is opaque to JSON Schema; restate it for the document.
  .meta({ description: 'Workflow id: 1 to 1000 characters, no control characters.', minLength: 1, maxLength: 1000 });

export const RunIdSchema = z
  .string()
  .superRefine((value, context) => {
    const problem = runIdProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem, params: { reason: 'invalid_run_id' } });
  })
  .meta({ description: 'Run id (a UUID).', format: 'uuid' });

export const CatalogNameSchema = z
  .string()
  .min(1)
  .max(1000)
  .meta({ description: 'Catalog (= task queue). The default catalog when omitted.' });

export const WorkflowNameSchema = z.string().min(1).max(200).meta({ description: 'Registered workflow name.' });

export const AnyJsonSchema = z.unknown().meta({ description: 'Any JSON value.' });
export const JsonObjectSchema = z.record(z.string(), z.unknown()).meta({ description: 'A JSON object.' });

export const TimestampSchema = z.iso.datetime().meta({ description: 'ISO 8601 UTC.' });

export const RunStatusSchema = z.enum(RUN_STATUSES).meta({ description: 'Run status; `running` while open.' });
export const TerminalStatusSchema = z.enum(TERMINAL_STATUSES);

export const ErrorBodySchema = z
  .strictObject({
    error: z.string().meta({ description: 'Error type name.' }),
    message: z.string(),
    workflowId: z.string().nullable().optional().meta({ description: 'Present when the error is tied to an execution.' }),
  })
  .meta({ title: 'Error' });

export const ValidationIssueSchema = z.looseObject({
  code: z.string(),
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});

export const ValidationErrorBodySchema = z
  .strictObject({
    error: z.literal('ValidationError'),
    message: z.string(),
    workflowId: z.string().nullable().optional(),
    issues: z.array(ValidationIssueSchema).meta({ description: 'Schema-validation issues (zod issue format).' }),
  })
  .meta({ title: 'ValidationErrorResponse' });

export const BadRequestBodySchema = z.union([ValidationErrorBodySchema, ErrorBodySchema]).meta({ title: 'BadRequest' });
