import { sep } from 'node:path';
import { ModuleLoadError } from '../../workflowSources/sourceErrors.js';
import { importModuleFile } from '../../workflowSources/typeScriptLoader.js';
import { isActivity, type ActivityDefinition } from '../../../core/definition/activity.js';
import { isWorkflowDefinition } from '../../../core/definition/workflow.js';
import { locallyDefinedExportNames } from '../../workflowSources/moduleSyntax.js';
import { stepStubSource, type ModuleExport } from './stepStubSource.js';

export interface StepStubLoaderOptions {
  /** Files or directories never imported in Node: the sandbox runtime and the generated entry module. */
  skipPaths: readonly string[];
  /** Absolute path of sandbox/stepActivity, imported by every stub. */
  stepActivityModulePath: string;
  /** Told about every module that was swapped, with its steps: the worker registers exactly these. */
  onStepModule(modulePath: string, steps: readonly ActivityDefinition[]): void;
}

/** The part of webpack's loader context this loader uses (typed here, so this file needs no webpack types). */
interface LoaderContext {
  readonly resourcePath: string;
  getOptions(): StepStubLoaderOptions;
}

/**
 * Webpack pre-loader for project modules and those of exposed packages (no other package). It imports the module in Node, in this very process,
 * so the step definitions it exports are the same objects the workflow modules imported; a module that exports a
 * step is replaced by a stub exporting activity calls under the same names (stepStubSource.ts). Modules are matched
 * by what they export, never by their file names.
 */
export default async function stepStubLoader(this: LoaderContext, source: string): Promise<string> {
  const options = this.getOptions();
  const modulePath = this.resourcePath;
  if (options.skipPaths.some((skip) => modulePath === skip || modulePath.startsWith(skip + sep))) return source;
  const exports = await moduleExports(modulePath);
  // A module that only re-exports steps (a package's index) stays as it is: webpack follows the re-export to the
  // step module, which is swapped. Sources acorn cannot read (TypeScript) count every export as their own.
  const ownNames = locallyDefinedExportNames(source);
  const own = ownNames ? exports.filter(({ exportName }) => ownNames.has(exportName)) : exports;
  const steps = [...new Set(own.flatMap(({ step }) => (step ? [step] : [])))];
  if (steps.length === 0) return source;
  const workflowNames = own.flatMap(({ value }) => (isWorkflowDefinition(value) ? [value.name] : []));
  if (workflowNames.length > 0) {
    throw new Error(
      `${modulePath} exports both workflows (${workflowNames.join(', ')}) and steps (${steps.map((step) => step.name).join(', ')}): ` +
        'move the steps to their own module, so the worker can swap that module for activity stubs (docs/authoring.md)',
    );
  }
  options.onStepModule(modulePath, steps);
  return stepStubSource(options.stepActivityModulePath, exports);
}

async function moduleExports(modulePath: string): Promise<(ModuleExport & { value: unknown })[]> {
  let module: Record<string, unknown>;
  try {
    module = await importModuleFile(modulePath);
  } catch (error) {
    const reason = error instanceof ModuleLoadError ? error.reason : String(error);
    throw new Error(`cannot import ${modulePath} in Node to look for steps: ${reason}`);
  }
  return Object.entries(module).map(([exportName, value]) => ({
    exportName,
    value,
    step: isActivity(value) ? value.definition : undefined,
  }));
}
