import type { ActivityDefinition } from '../../core/definition/activity.js';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import type { Logger } from '../../ports/logger.js';
import type { RunObserver } from '../../ports/runObserver.js';
import type { WorkerRegistration } from '../../adapters/embedded/index.js';
import { loadWorkerHooks } from '../../adapters/hooks/index.js';
import { workflowModulesOfDirectory } from '../../adapters/workflowSources/localModules.js';
import { findStepModules } from '../../adapters/workflowSources/stepModules.js';
import { describeStepCollision, registerSteps } from '../../adapters/workflowSources/stepRegistration.js';
import { collectWorkerWorkflows } from '../../adapters/workflowSources/workerWorkflows.js';

/** A worker of the embedded engine: the catalog it serves, its workflows and its step table (EmbeddedEngine.registerWorker). */
export interface WorkerSpec extends WorkerRegistration {
  catalog: string;
  workflows: readonly WorkflowDefinition<any, any>[];
  /** Steps and evaluators by name. @default each call runs the step it was made with */
  steps?: ReadonlyMap<string, ActivityDefinition>;
  /** The worker's hooks (hook files of the project and `hookFiles`). */
  observer?: RunObserver & { close(): Promise<void> };
}

export interface EmbeddedWorkerOptions {
  catalog: string;
  /** Every workflow module directly in this directory, or: */
  workflowsDir?: string;
  workflowModules?: readonly string[];
  /** The worker project: exposed packages in its node_modules join the catalog. */
  projectDir?: string;
  /** Hook files besides those the project's package.json declares (`flowgate.hookFiles`). */
  hookFiles?: readonly string[];
  /** A hook handler still running after this long is abandoned and reported through onError. @default 5000 */
  hookTimeoutMs?: number;
  logger: Logger;
}

/**
 * Loads what a Temporal worker of the same catalog would serve (local modules plus exposed packages, one name space
 * for workflows and one for steps), so both engines run the same catalog the same way.
 */
export async function loadEmbeddedWorker(options: EmbeddedWorkerOptions): Promise<WorkerSpec> {
  const local = options.workflowsDir !== undefined ? await workflowModulesOfDirectory(options.workflowsDir) : { modules: [...(options.workflowModules ?? [])] };
  const { workflows, ownership } = await collectWorkerWorkflows({ workflowModules: local.modules, projectDir: options.projectDir, logger: options.logger });
  if (local.missing) {
    if (workflows.length === 0) throw local.missing;
    options.logger.warn(`${local.missing.message}; serving the workflows of exposed packages only`, { workflowsDir: options.workflowsDir });
  }
  const stepModules = await findStepModules([...new Set(workflows.map(({ modulePath }) => modulePath))], ownership);
  const table = registerSteps(stepModules);
  for (const collision of table.collisions) options.logger.warn(describeStepCollision(collision), { step: collision.name });
  const observer = await loadWorkerHooks(options);
  return {
    catalog: options.catalog,
    workflows: workflows.map(({ definition }) => definition),
    steps: table.byName,
    ...(observer ? { observer } : {}),
  };
}
