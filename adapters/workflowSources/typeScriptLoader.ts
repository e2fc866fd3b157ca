import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);
// On globalThis, so two copies of flowgate in one process (a built one and sources) register tsx's hooks once.
const REGISTERED = Symbol.for('flowgate.typeScriptLoader');
// tsx's own mark, set when its loader already runs in this process (`node --import tsx`, the tsx command).
const TSX_ACTIVE = Symbol.for('tsx:global-cjs-loader-count');
type Registry = { [REGISTERED]?: true; [TSX_ACTIVE]?: number };

/**
 * Imports a workflow, step or hook module of the user's project. A TypeScript file (.ts, .mts) needs no loader flag
 * and no build step: tsx's ESM hooks are registered once, process-wide, before the first one is imported. Process-wide
 * rather than tsx's namespaced import because a namespace loads every package again under its own URL (a second
 * copy of `flowgate` and `zod` for the workflows, whose definitions the engine would then not recognise). When tsx
 * already runs in the process (`node --import tsx`), its hooks are not added a second time.
 */
export async function importModuleFile(file: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT_EXTENSIONS.has(extname(file))) registerTypeScriptLoader();
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

function registerTypeScriptLoader(): void {
  const registry = globalThis as Registry;
  if (registry[REGISTERED] || (registry[TSX_ACTIVE] ?? 0) > 0) return;
  register();
  registry[REGISTERED] = true;
}
