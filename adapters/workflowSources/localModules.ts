import { readdir } from 'node:fs/promises';
import { extname, isAbsolute, join, resolve } from 'node:path';
import { isWorkflowDefinition } from '../../core/definition/workflow.js';
import { WorkflowNameCollisionError, WorkflowsDirectoryError } from './sourceErrors.js';
import { importModuleFile } from './typeScriptLoader.js';
import type { WorkflowExport } from './workflowExport.js';

// TypeScript modules load through tsx's hooks (typeScriptLoader.ts), registered on first use.
const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.ts', '.mts']);

/** The workflow module files directly in `directory` (not its subdirectories), sorted. WorkflowsDirectoryError when there is none. */
export async function workflowModulesIn(directory: string): Promise<string[]> {
  const root = resolve(directory);
  const entries = await readdir(root, { withFileTypes: true }).catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new WorkflowsDirectoryError(directory, { cause: error });
    throw error;
  });
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
 * Imports the worker's own workflow modules in Node and finds their workflow definitions: names and schemas come from
 * the definitions themselves. Two different definitions with one name are refused with both modules named.
 */
export async function importWorkflowExports(modulePaths: readonly string[]): Promise<WorkflowExport[]> {
  const found = new Map<string, WorkflowExport>();
  for (const modulePath of modulePaths) {
    if (!isAbsolute(modulePath)) throw new TypeError(`workflow module paths must be absolute: ${modulePath}`);
    const module = await importModuleFile(modulePath);
    for (const [exportName, exported] of Object.entries(module)) {
      if (!isWorkflowDefinition(exported)) continue;
      const previous = found.get(exported.name);
      const origin = { kind: 'local', file: modulePath } as const;
      if (previous && previous.definition !== exported) throw new WorkflowNameCollisionError(exported.name, previous.origin, origin);
      if (!previous) found.set(exported.name, { modulePath, exportName, definition: exported, origin });
    }
  }
  return [...found.values()];
}

/**
 * The modules of a workflows directory that may be missing: a project whose workflows all come from exposed packages
 * needs none. The caller refuses a missing directory when nothing else supplies a workflow.
 */
export async function workflowModulesOfDirectory(directory: string): Promise<{ modules: string[]; missing?: WorkflowsDirectoryError }> {
  try {
    return { modules: await workflowModulesIn(directory) };
  } catch (error) {
    if (error instanceof WorkflowsDirectoryError) return { modules: [], missing: error };
    throw error;
  }
}
