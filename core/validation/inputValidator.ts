import { z } from 'zod';
import type { JsonSchema } from '../domain/json.js';
import { ValidationError, type ValidationIssue } from '../domain/errors.js';

// Catalog schemas are long-lived objects, so a WeakMap caches each conversion exactly once.
const compiled = new WeakMap<object, z.ZodType>();

function toZod(schema: JsonSchema): z.ZodType {
  if (typeof schema === 'boolean') return schema ? z.unknown() : z.never();
  let zodSchema = compiled.get(schema);
  if (!zodSchema) {
    zodSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(schema, zodSchema);
  }
  return zodSchema;
}

/** Checks a value against a published JSON Schema; throws ValidationError with issues under `field` (`input`, `payload`). */
function validateAgainst(schema: JsonSchema, value: unknown, field: string, message: string): void {
  const result = toZod(schema).safeParse(value);
  if (result.success) return;
  const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
    ...issue,
    path: [field, ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))],
  }));
  throw new ValidationError(message, { issues });
}

/** Checks a workflow input against the JSON Schema its catalog publishes; throws ValidationError with issues. */
export function validateWorkflowInput(workflowName: string, schema: JsonSchema, input: unknown): void {
  validateAgainst(schema, input, 'input', `input does not match the input schema of workflow "${workflowName}"`);
}

/** Checks a webhook reply against the feedback JSON Schema its workflow's catalog publishes; throws ValidationError with issues. */
export function validateFeedbackPayload(workflowName: string, schema: JsonSchema, payload: unknown): void {
  validateAgainst(schema, payload, 'payload', `payload does not match the feedback schema of workflow "${workflowName}"`);
}
