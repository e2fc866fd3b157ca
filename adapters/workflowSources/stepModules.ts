import { access } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve, sep } from 'node:path';
import { isActivity, type ActivityDefinition } from '../../core/definition/activity.js';
import { staticImportSpecifiers } from './moduleImports.js';
import { importModuleFile } from './typeScriptLoader.js';
import type { PackageOwnership } from './packageOwnership.js';
import type { StepModule } from './stepRegistration.js';

const NODE_MODULES = `${sep}node_modules${sep}`;

/**
 * The step modules a worker's workflows reach through relative static imports, as the Temporal worker's bundler finds
 * them: the embedded engine uses the result to register steps by name exactly as a Temporal worker registers its
 * activities. Files inside node_modules are followed only within an exposed package; bare specifiers are not
 * followed (a step imported from another package runs as called).
 */
export async function findStepModules(workflowModules: readonly string[], ownership: PackageOwnership): Promise<StepModule[]> {
  const seen = new Set<string>();
  const pending = [...workflowModules];
  const found: StepModule[] = [];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const steps = await stepsExportedBy(file);
    if (steps.length > 0) found.push({ modulePath: file, packageName: ownership.ownerOf(file), steps });
    for (const specifier of await staticImportSpecifiers(file)) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue;
      const target = await existingModuleFile(resolve(dirname(file), specifier));
      if (target && followable(target, ownership)) pending.push(target);
    }
  }
  return found;
}

async function stepsExportedBy(file: string): Promise<ActivityDefinition[]> {
  const module = await importModuleFile(file);
  return [...new Set(Object.values(module).filter(isActivity).map((activity) => activity.definition))];
}

/** Node's file for an import path; under a TypeScript loader `./x.js` may name `./x.ts`, as tsx and webpack resolve it. */
async function existingModuleFile(path: string): Promise<string | undefined> {
  const candidates = [path];
  if (extname(path) === '.js') candidates.push(`${path.slice(0, -3)}.ts`);
  if (extname(path) === '.mjs') candidates.push(`${path.slice(0, -4)}.mts`);
  for (const candidate of candidates) {
    if (await access(candidate).then(() => true, () => false)) return candidate;
  }
  return undefined;
}

function followable(file: string, ownership: PackageOwnership): boolean {
  if (!isAbsolute(file)) return false;
  return !file.includes(NODE_MODULES) || ownership.ownerOf(file) !== undefined;
}
