import type { WorkflowTypeInfo } from '../domain/catalog.js';
import { CatalogNotAvailableError, UnsupportedWorkflowError, WorkflowNotFoundError } from '../domain/errors.js';
import type { CoreDeps } from './deps.js';

/**
 * Finds a workflow type in a catalog, telling apart the cases docs/api.md maps to different statuses: unknown
 * catalog, type in no catalog, type only in another catalog, and a catalog whose worker is not running.
 */
export async function resolveWorkflowType(
  deps: Pick<CoreDeps, 'engine'>,
  workflowName: string,
  catalogName: string,
  /** A schedule names a workflow it starts later: the catalog must publish it, a worker need not run now. */
  { needsWorker = true }: { needsWorker?: boolean } = {},
): Promise<WorkflowTypeInfo> {
  const catalog = await deps.engine.describeCatalog(catalogName);
  if (!catalog) throw CatalogNotAvailableError.unknown(catalogName);
  const type = catalog.workflows.find((workflow) => workflow.name === workflowName);
  if (!type) {
    const elsewhere = await deps.engine.catalogsWithWorkflow(workflowName);
    if (elsewhere.length > 0) {
      throw new UnsupportedWorkflowError(
        `Workflow "${workflowName}" is not in catalog "${catalogName}"; it is in: ${elsewhere.join(', ')}`,
      );
    }
    throw new WorkflowNotFoundError(`Workflow "${workflowName}" is not registered in any catalog`);
  }
  if (needsWorker && !catalog.available) throw CatalogNotAvailableError.noLiveWorker(catalogName);
  return type;
}
