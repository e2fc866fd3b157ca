import type { Logger } from '../../ports/logger.js';
import { discoverPackagedWorkflows, formatDiscoveryWarning, type DiscoveryWarning } from './discoverPackages.js';
import { WorkflowNameCollisionError } from './sourceErrors.js';
import { importWorkflowExports } from './localModules.js';
import { PackageOwnership } from './packageOwnership.js';
import type { WorkflowExport } from './workflowExport.js';

export interface WorkerWorkflowsOptions {
  /** The worker's own workflow modules (absolute paths). */
  workflowModules: readonly string[];
  /** The worker project: exposed packages in its node_modules join the catalog. Undefined: no package discovery. */
  projectDir?: string | undefined;
  logger: Logger;
}

export interface WorkerWorkflows {
  /** Local workflows first, then packaged ones (packages by name). */
  workflows: WorkflowExport[];
  /** The exposed packages: a module inside one of them belongs to that package. */
  ownership: PackageOwnership;
  warnings: DiscoveryWarning[];
}

/**
 * Everything a worker serves: its own workflow modules plus the workflows of exposed packages, in one name space.
 * Each discovery problem is logged as one warning line; a name defined twice stops the worker with both sources named.
 */
export async function collectWorkerWorkflows(options: WorkerWorkflowsOptions): Promise<WorkerWorkflows> {
  const local = await importWorkflowExports(options.workflowModules);
  const discovery = options.projectDir === undefined ? undefined : await discoverPackagedWorkflows(options.projectDir);
  for (const warning of discovery?.warnings ?? []) {
    options.logger.warn(formatDiscoveryWarning(warning), {
      package: warning.packageName,
      file: warning.file,
      ...(warning.line !== undefined ? { line: warning.line } : {}),
    });
  }
  return {
    workflows: oneNameSpace([...local, ...(discovery?.workflows ?? [])]),
    ownership: await PackageOwnership.of(discovery?.exposedPackages ?? []),
    warnings: discovery?.warnings ?? [],
  };
}

/**
 * One name space: two different definitions of one name (local and packaged, two packages, or two files of one
 * package) refuse to start. The same definition reached twice (a local module re-exporting a packaged workflow) is one
 * workflow, not two.
 */
export function oneNameSpace(workflows: readonly WorkflowExport[]): WorkflowExport[] {
  const byName = new Map<string, WorkflowExport>();
  for (const workflow of workflows) {
    const known = byName.get(workflow.definition.name);
    if (!known) byName.set(workflow.definition.name, workflow);
    else if (known.definition !== workflow.definition) {
      // Two exports of one file: the file alone would name it twice.
      const sameFile = known.origin.file === workflow.origin.file;
      throw new WorkflowNameCollisionError(workflow.definition.name, known.origin, workflow.origin, sameFile ? [known.exportName, workflow.exportName] : undefined);
    }
  }
  return [...byName.values()];
}
