import { fileURLToPath } from 'node:url';
import { isWorkflowDefinition, type WorkflowDefinition } from '../../core/definition/workflow.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/workflows/${name}`, import.meta.url));

/**
 * The catalogs every contract suite runs against, as workflow modules: the embedded engine imports them, a Temporal
 * worker bundles them. `idle` is served by a worker the suites stop, so it is known but unavailable.
 */
export const FIXTURE_CATALOGS: { catalog: string; modules: string[] }[] = [
  { catalog: 'main', modules: [fixture('basic.ts'), fixture('contract.ts'), fixture('counting.ts')] },
  { catalog: 'other', modules: [fixture('otherCatalog.ts')] },
  { catalog: 'idle', modules: [fixture('idleCatalog.ts')] },
];

export async function definitionsOf(modules: string[]): Promise<WorkflowDefinition<any, any>[]> {
  const definitions = new Set<WorkflowDefinition<any, any>>();
  for (const path of modules) {
    const module = (await import(path)) as Record<string, unknown>;
    for (const exported of Object.values(module)) if (isWorkflowDefinition(exported)) definitions.add(exported);
  }
  return [...definitions];
}
