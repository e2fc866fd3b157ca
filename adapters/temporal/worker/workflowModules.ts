import { readdir } from 'node:fs/promises';
import { extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isWorkflowDefinition, type WorkflowDefinition } from '../../../core/definition/workflow.js';

/** Where the generated entry module finds one workflow definition: a module file and one of its export names. */
export interface WorkflowExport {
  modulePath: string;
  exportName: string;
  definition: WorkflowDefinition;
}

// .ts files are only importable when a TypeScript loader is active (tests, tsx); a build has .js.
const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.ts', '.mts']);

/** The workflow module files directly in `directory` (as composition/workflowDirectory.ts picks them), sorted. */
export async function workflowModulesIn(directory: string): Promise<string[]> {
  const root = resolve(directory);
  const entries = await readdir(root, { withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && MODULE_EXTENSIONS.has(extname(entry.name)) && !/\.d\.m?ts$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  // When both `x.ts` and `x.js` exist (a build next to sources), load one of them: the built one.
  const byStem = new Map<string, string>();
  for (const file of files) {
    const stem = file.slice(0, -extname(file).length);
    const current = byStem.get(stem);
    if (!current || extname(file) === '.js') byStem.set(stem, file);
  }
  return [...byStem.values()].map((file) => join(root, file));
}

/**
 * Imports the workflow modules in Node and finds their workflow definitions: names and schemas come from the
 * definitions themselves. Two different definitions with one name are refused with both modules named.
 */
export async function importWorkflowExports(modulePaths: readonly string[]): Promise<WorkflowExport[]> {
  const found = new Map<string, WorkflowExport>();
  for (const modulePath of modulePaths) {
    if (!isAbsolute(modulePath)) throw new TypeError(`workflow module paths must be absolute: ${modulePath}`);
    const module = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
    for (const [exportName, exported] of Object.entries(module)) {
      if (!isWorkflowDefinition(exported)) continue;
      const previous = found.get(exported.name);
      if (previous && previous.definition !== exported) {
        throw new Error(`workflow name "${exported.name}" is defined twice: in ${previous.modulePath} and in ${modulePath}`);
      }
      if (!previous) found.set(exported.name, { modulePath, exportName, definition: exported });
    }
  }
  return [...found.values()];
}
