import type { WorkflowOrigin } from './workflowExport.js';

/**
 * Two different workflows under one name: one local module and a package, two packages, or two modules of one package
 * (workflow names are unique and packaged workflows share the local name space). The worker refuses to start rather
 * than pick one.
 */
export class WorkflowNameCollisionError extends Error {
  override name = 'WorkflowNameCollisionError';

  constructor(
    readonly workflowName: string,
    readonly first: WorkflowOrigin,
    readonly second: WorkflowOrigin,
  ) {
    super(`workflow name "${workflowName}" is defined twice: by ${describeOrigin(first)} and by ${describeOrigin(second)}; rename one of them`);
  }
}

export function describeOrigin(origin: WorkflowOrigin): string {
  return origin.kind === 'local' ? `local module ${origin.file}` : `package ${origin.packageName} (${origin.file})`;
}
