import type { WorkflowListView } from '../api/views.js';
import { CatalogNotAvailableError } from '../domain/errors.js';
import { mayUse, requireCatalog, type Access } from '../domain/access.js';
import type { CoreDeps } from './deps.js';

/**
 * What a catalog publishes: names, descriptions and the input, output and feedback JSON Schemas (forms, typed clients).
 * Answered from the engine's catalog registry, so it works while workers are busy or down.
 */
export async function listWorkflows(
  deps: Pick<CoreDeps, 'engine' | 'defaultCatalog'>,
  catalogName: string | undefined,
  access?: Access,
): Promise<WorkflowListView> {
  const name = catalogName ?? deps.defaultCatalog;
  // A catalog the key may not use is refused before the engine is asked, so it learns nothing of that catalog.
  requireCatalog(access, name);
  const catalog = await deps.engine.describeCatalog(name);
  if (!catalog) throw CatalogNotAvailableError.unknown(name);
  return {
    workflows: catalog.workflows.filter((workflow) => mayUse(access, { catalog: name, workflowName: workflow.name })).map(({ name: workflowName, description, inputSchema, outputSchema, feedbackSchema }) => ({
      name: workflowName,
      description,
      inputSchema,
      outputSchema,
      ...(feedbackSchema === undefined ? {} : { feedbackSchema }),
    })),
  };
}
