import { register as registerModuleHooks } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register as registerTsx } from 'tsx/esm/api';
import type { EsModuleHooksData } from './esModuleHooks.js';
import { ModuleLoadError } from './sourceErrors.js';

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);
// On globalThis, so two copies of flowgate in one process (a built one and sources) register tsx's hooks once.
const REGISTERED = Symbol.for('flowgate.typeScriptLoader');
// tsx's own mark, set when its loader already runs in this process (`node --import tsx`, the tsx command).
const TSX_ACTIVE = Symbol.for('tsx:global-cjs-loader-count');
type Registry = { [REGISTERED]?: true; [TSX_ACTIVE]?: number };

// Per copy of this module: each copy's hooks know that copy's URL as the importer (esModuleHooks.ts).
let esModuleHooksRegistered = false;

/**
 * Imports a workflow, step or hook module of the user's project. A TypeScript file (.ts, .mts) needs no loader flag
 * and no build step: tsx's ESM hooks are registered once, process-wide, before the first one is imported. Process-wide
 * rather than tsx's namespaced import because a namespace loads every package again under its own URL (a second
 * copy of `flowgate` and `zod` for the workflows, whose definitions the engine would then not recognise). When tsx
 * already runs in the process (`node --import tsx`), its hooks are not added a second time. The project's files load
 * as ES modules whatever its package.json's `type` says (esModuleHooks.ts). A module that does not load is a
 * ModuleLoadError whose message says where and why in one line.
 */
export async function importModuleFile(file: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT_EXTENSIONS.has(extname(file))) registerTypeScriptLoader();
  registerEsModuleHooks();
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ModuleLoadError(file, error);
  }
}

function registerTypeScriptLoader(): void {
  const registry = globalThis as Registry;
  if (registry[REGISTERED] || (registry[TSX_ACTIVE] ?? 0) > 0) return;
  registerTsx();
  registry[REGISTERED] = true;
}

/**
 * Once per copy of flowgate. Before or after tsx's hooks alike: whichever runs first, the format these hooks give a
 * file is the one tsx compiles it for (tsx sets a format only where none is given).
 */
function registerEsModuleHooks(): void {
  if (esModuleHooksRegistered) return;
  const data: EsModuleHooksData = { importerUrl: import.meta.url };
  // The hooks thread maps no `.js` to `.ts`: the hooks file is named with this file's own extension (`.ts` when
  // flowgate runs from its sources, `.js` when built).
  const hooks = new URL(`./esModuleHooks${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  registerModuleHooks(hooks, { data });
  esModuleHooksRegistered = true;
}
