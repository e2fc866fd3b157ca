import type { WorkflowDefinition } from '../../core/definition/workflow.js';

/** Where a workflow a worker serves comes from: one of the worker's own modules, or an installed package. */
export type WorkflowOrigin =
  | { kind: 'local'; file: string }
  | { kind: 'package'; packageName: string; packageDir: string; file: string };

/** One workflow definition and how to import it: the module that declares it and its export name there. */
export interface WorkflowExport {
  modulePath: string;
  exportName: string;
  definition: WorkflowDefinition;
  origin: WorkflowOrigin;
}
