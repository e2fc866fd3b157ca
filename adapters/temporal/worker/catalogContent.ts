import type { WorkflowDefinition } from '../../../core/definition/workflow.js';
import { publishedTypeInfo } from '../../../core/definition/publishedSchemas.js';
import type { PublishedWorkflow } from '../protocol.js';
import type { Logger } from '../../../ports/logger.js';

/** What a worker publishes for its workflows: names, descriptions and JSON Schemas (computed once, at start-up). */
export function workflowTypeInfos(workflows: readonly WorkflowDefinition<any, any>[], logger: Logger): PublishedWorkflow[] {
  return workflows.map((definition) => ({
    ...publishedTypeInfo(definition, logger),
    // The API starts runs with it as Temporal's workflowRunTimeout.
    ...(definition.runTimeoutMs !== undefined ? { runTimeoutMs: definition.runTimeoutMs } : {}),
  }));
}
