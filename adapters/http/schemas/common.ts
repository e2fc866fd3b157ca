import { z } from 'zod';

/*
 * The wire's building blocks are declared once, in core/api/wire (docs/architecture.md); what is here is the HTTP
 * adapter's own: the error bodies of its error table (errors.ts).
 */
export * from '../../../core/api/wire/common.js';

export const ErrorBodySchema = z
  .strictObject({
    error: z.string().meta({ description: 'Error type name.' }),
    message: z.string(),
    workflowId: z.string().nullable().optional().meta({ description: 'Present when the error is tied to an execution.' }),
    runId: z.string().optional().meta({ description: 'The run a `WorkflowExecutionTimedOutError` (408) waited on; its result is at `Location`.' }),
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
