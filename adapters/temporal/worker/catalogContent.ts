import { z } from 'zod';
import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import type { PublishedWorkflow } from '../protocol.js';
import type { JsonSchema } from '../../../core/domain/json.js';
import type { Logger } from '../../../ports/logger.js';

/** What a worker publishes for its workflows: names, descriptions and JSON Schemas (computed once, at start-up). */
export function workflowTypeInfos(workflows: readonly WorkflowDefinition<any, any>[], logger: Logger): PublishedWorkflow[] {
  return workflows.map((definition) => ({
    name: definition.name,
    description: definition.description,
    inputSchema: jsonSchemaOf(definition, 'input', logger),
    outputSchema: jsonSchemaOf(definition, 'output', logger),
    // The API starts runs with it as Temporal's workflowRunTimeout.
    ...(definition.runTimeoutMs !== undefined ? { runTimeoutMs: definition.runTimeoutMs } : {}),
  }));
}

function jsonSchemaOf(definition: WorkflowDefinition<any, any>, io: 'input' | 'output', logger: Logger): JsonSchema {
  const schema = io === 'input' ? definition.inputSchema : definition.outputSchema;
  try {
    return z.toJSONSchema(schema, { unrepresentable: 'any', io }) as JsonSchema;
  } catch (error) {
    // As on the embedded engine: a schema zod cannot describe still runs; the catalog publishes "anything" for it.
    logger.warn('workflow schema has no JSON Schema form; publishing an open schema', {
      workflowName: definition.name,
      io,
      error: error instanceof Error ? error.message : String(error),
    });
    return {};
  }
}
