import { z } from 'zod';
import type { Logger } from '../../ports/logger.js';
import type { WorkflowTypeInfo } from '../domain/catalog.js';
import type { JsonSchema } from '../domain/json.js';
import type { WorkflowDefinition } from './workflow.js';

/** The schemas a catalog publishes for a workflow, by their field in the workflow list. */
export interface PublishedSchemas {
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** Only for a workflow that declares a feedbackSchema. */
  feedbackSchema?: JsonSchema;
}

/**
 * A workflow's schemas as JSON Schema (draft 2020-12), the same on both engines' catalogs: the input and the feedback
 * as a caller sends them (before defaults and transforms apply), the output as a run produces it. A schema zod cannot
 * describe still runs; it is published open (`{}`), and `unrepresentable` is told which and why.
 */
export function publishedSchemas(
  definition: WorkflowDefinition<any, any, any, any>,
  unrepresentable: (schema: keyof PublishedSchemas, error: unknown) => void,
): PublishedSchemas {
  const toJsonSchema = (field: keyof PublishedSchemas, schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    try {
      return z.toJSONSchema(schema, { unrepresentable: 'any', io }) as JsonSchema;
    } catch (error) {
      unrepresentable(field, error);
      return {};
    }
  };
  return {
    inputSchema: toJsonSchema('inputSchema', definition.inputSchema, 'input'),
    outputSchema: toJsonSchema('outputSchema', definition.outputSchema, 'output'),
    ...(definition.feedbackSchema ? { feedbackSchema: toJsonSchema('feedbackSchema', definition.feedbackSchema, 'input') } : {}),
  };
}

/**
 * A workflow as both engines' catalogs publish it: its name, description and schemas. A schema without a JSON Schema
 * form is published open and logged, once: callers compute this once per definition, never per run or request.
 */
export function publishedTypeInfo(definition: WorkflowDefinition<any, any, any, any>, logger: Logger): WorkflowTypeInfo {
  const schemas = publishedSchemas(definition, (schema, error) =>
    logger.warn('workflow schema has no JSON Schema form; publishing an open schema', {
      workflowName: definition.name,
      schema,
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  return { name: definition.name, description: definition.description, ...schemas };
}
