import { describeLoadFailure } from './loadFailure.js';
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
    /** The two exports' names, when both are in one file. */
    exportNames?: readonly [string, string],
  ) {
    const where = exportNames
      ? `by the exports ${exportNames[0]} and ${exportNames[1]} of ${describeOrigin(first)}`
      : `by ${describeOrigin(first)} and by ${describeOrigin(second)}`;
    super(`workflow name "${workflowName}" is defined twice: ${where}; rename one of them`);
  }
}

/**
 * Two different steps (or evaluators) under one name in the project's own modules: which one a workflow's call runs
 * would depend on the order the files are registered in. The worker refuses to start. (A local step of a package
 * step's name is an override, reported but allowed: docs/packages.md.)
 */
export class StepNameCollisionError extends Error {
  override name = 'StepNameCollisionError';

  constructor(
    readonly stepName: string,
    readonly firstModule: string,
    readonly secondModule: string,
  ) {
    super(`step name "${stepName}" is defined twice: by local module ${firstModule} and by local module ${secondModule}; rename one of them`);
  }
}

export function describeOrigin(origin: WorkflowOrigin): string {
  return origin.kind === 'local' ? `local module ${origin.file}` : `package ${origin.packageName} (${origin.file})`;
}

/**
 * A workflow, step or hook module of the project that cannot be imported (a syntax error, a missing import, a throw).
 * `reason` is one line: the compiler's message with its file, line and column, or the error's first line; the error
 * itself is the cause.
 */
export class ModuleLoadError extends Error {
  override name = 'ModuleLoadError';
  readonly reason: string;

  constructor(readonly file: string, cause: unknown) {
    const reason = describeLoadFailure(cause);
    super(`${file} does not load: ${reason}`, { cause });
    this.reason = reason;
  }
}

/** The workflows directory to serve does not exist (or is not a directory). */
export class WorkflowsDirectoryError extends Error {
  override name = 'WorkflowsDirectoryError';

  constructor(readonly directory: string, options?: { cause?: unknown }) {
    super(`workflows directory ${directory} does not exist (give another with --workflows DIR or WORKFLOWS_DIR)`, options);
  }
}
