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

/** Checks a workflow input against the JSON Schema its catalog publishes; throws ValidationError with issues. */
export function validateWorkflowInput(workflowName: string, schema: JsonSchema, input: unknown): void {
  const result = toZod(schema).safeParse(input);
  if (result.success) return;
  const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
    ...issue,
    path: ['input', ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))],
  }));
  throw new ValidationError(`input does not match the input schema of workflow "${workflowName}"`, { issues });
}
