import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { isHooksDefinition, type HooksDefinition } from '../../core/definition/hooks.js';
import { ModuleLoadError } from '../workflowSources/sourceErrors.js';
import { importModuleFile } from '../workflowSources/typeScriptLoader.js';

/** A declared hook file that cannot be used: missing, failing to import, or without a defineHooks() default export. */
export class HookFileError extends Error {
  override name = 'HookFileError';
}

/**
 * The hook files of a worker: `"flowgate": { "hookFiles": [...] }` in the project's package.json (paths relative to
 * the project) plus those given in code. Each must default-export defineHooks(...); a worker with a broken hook file
 * refuses to start, since running without the hooks would silently lose the metering they exist for.
 */
export async function loadHookFiles(options: { projectDir?: string | undefined; hookFiles?: readonly string[] }): Promise<HooksDefinition[]> {
  const declared = options.projectDir ? await declaredHookFiles(options.projectDir) : [];
  const files = [...declared, ...(options.hookFiles ?? []).map((file) => (isAbsolute(file) ? file : resolve(file)))];
  const definitions: HooksDefinition[] = [];
  for (const file of [...new Set(files)]) {
    let module: Record<string, unknown>;
    try {
      module = await importModuleFile(file);
    } catch (error) {
      throw new HookFileError(`hook file ${file} cannot be imported: ${error instanceof ModuleLoadError ? error.reason : String(error)}`);
    }
    if (!isHooksDefinition(module.default)) {
      throw new HookFileError(`hook file ${file} must default-export defineHooks((hooks) => { ... }) from 'flowgate'`);
    }
    definitions.push(module.default);
  }
  return definitions;
}

async function declaredHookFiles(projectDir: string): Promise<string[]> {
  const manifestFile = join(projectDir, 'package.json');
  let text: string;
  try {
    text = await readFile(manifestFile, 'utf8');
  } catch {
    return [];
  }
  let manifest: { flowgate?: { hookFiles?: unknown } };
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch (error) {
    throw new HookFileError(`${manifestFile} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const hookFiles = manifest.flowgate?.hookFiles;
  if (hookFiles === undefined) return [];
  if (!Array.isArray(hookFiles) || !hookFiles.every((file) => typeof file === 'string' && file.length > 0)) {
    throw new HookFileError(`${manifestFile}: "flowgate.hookFiles" must be an array of file paths`);
  }
  return hookFiles.map((file: string) => resolve(projectDir, file));
}
