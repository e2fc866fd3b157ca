import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import { publishedSchemas } from '../../../core/definition/publishedSchemas.js';
import type { PublishedWorkflow } from '../protocol.js';
import type { Logger } from '../../../ports/logger.js';

/** What a worker publishes for its workflows: names, descriptions and JSON Schemas (computed once, at start-up). */
export function workflowTypeInfos(workflows: readonly WorkflowDefinition<any, any>[], logger: Logger): PublishedWorkflow[] {
  return workflows.map((definition) => ({
    name: definition.name,
    description: definition.description,
    // As on the embedded engine: a schema zod cannot describe still runs; the catalog publishes "anything" for it.
    ...publishedSchemas(definition, (schema, error) =>
      logger.warn('workflow schema has no JSON Schema form; publishing an open schema', {
        workflowName: definition.name,
        schema,
        error: error instanceof Error ? error.message : String(error),
      }),
    ),
    // The API starts runs with it as Temporal's workflowRunTimeout.
    ...(definition.runTimeoutMs !== undefined ? { runTimeoutMs: definition.runTimeoutMs } : {}),
  }));
}
