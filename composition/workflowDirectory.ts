import { readdir } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isWorkflowDefinition, type WorkflowDefinition } from '../core/definition/workflow.js';

// .ts files are only importable when a TypeScript loader is active (tests, `npm run dev`); the build has .js.
const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.ts', '.mts']);

function isModuleFile(name: string): boolean {
  return MODULE_EXTENSIONS.has(extname(name)) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts');
}

/**
 * Imports every module directly in `directory` and collects the workflow definitions it exports. Two definitions
 * with the same name are refused with both files named.
 */
export async function loadWorkflowsFromDirectory(directory: string): Promise<WorkflowDefinition[]> {
  const root = resolve(directory);
  const entries = await readdir(root, { withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && isModuleFile(entry.name)).map((entry) => entry.name).sort();
  const found = new Map<string, { definition: WorkflowDefinition; file: string }>();
  for (const file of preferBuiltFiles(files)) {
    const module = (await import(pathToFileURL(join(root, file)).href)) as Record<string, unknown>;
    for (const exported of new Set(Object.values(module))) {
      if (!isWorkflowDefinition(exported)) continue;
      const previous = found.get(exported.name);
      if (previous && previous.definition !== exported) {
        throw new Error(`workflow name "${exported.name}" is defined twice: in ${previous.file} and in ${file}`);
      }
      found.set(exported.name, { definition: exported, file });
    }
  }
  return [...found.values()].map(({ definition }) => definition);
}

/** When both `x.ts` and `x.js` exist (a build next to sources), load one of them. */
function preferBuiltFiles(files: string[]): string[] {
  const byStem = new Map<string, string>();
  for (const file of files) {
    const stem = file.slice(0, -extname(file).length);
    const current = byStem.get(stem);
    if (!current || extname(file) === '.js') byStem.set(stem, file);
  }
  return [...byStem.values()];
}
