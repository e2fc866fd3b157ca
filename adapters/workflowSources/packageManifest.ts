import { extname } from 'node:path';

/** The part of a package.json discovery reads. */
export interface PackageManifest {
  name?: unknown;
  type?: unknown;
  exports?: unknown;
  module?: unknown;
  main?: unknown;
  flowgate?: unknown;
}

/**
 * `"flowgate": { "workflows": { "expose": true } }` (spec: a flag `workflows.expose` under a framework-specific
 * top-level key). Only the boolean `true` exposes; a present `expose` of another kind is 'malformed', worth a warning.
 */
export function isExposed(manifest: unknown): boolean | 'malformed' {
  const flowgate = (manifest as PackageManifest | undefined)?.flowgate;
  if (flowgate === undefined) return false;
  const workflows = isObject(flowgate) ? flowgate.workflows : undefined;
  const expose = isObject(workflows) ? workflows.expose : undefined;
  if (expose === true) return true;
  if (expose === false || (isObject(flowgate) && workflows === undefined)) return false;
  return 'malformed';
}

export type EsmEntry = { path: string; from: 'exports' | 'module' | 'main' } | { problem: string };

// The conditions an ESM import in Node matches, in the order Node's resolver honours them (the object's key order).
const IMPORT_CONDITIONS = new Set(['import', 'node', 'default']);

/** The package's ESM entry: `exports["."]` (import/node/default), else `module`, else `main`, else `index.js`. */
export function esmEntry(manifest: unknown): EsmEntry {
  const fields = (isObject(manifest) ? manifest : {}) as PackageManifest;
  if (fields.exports !== undefined && fields.exports !== null) {
    const target = conditionalTarget(rootExport(fields.exports));
    if (target === undefined) return { problem: 'its "exports" has no ESM target for "." (an "import" or "default" condition)' };
    if (!target.startsWith('./')) return { problem: `its "exports" target "${target}" must start with "./"` };
    return { path: target, from: 'exports' };
  }
  if (typeof fields.module === 'string' && fields.module.length > 0) return { path: fields.module, from: 'module' };
  if (typeof fields.main === 'string' && fields.main.length > 0) return { path: fields.main, from: 'main' };
  return { path: 'index.js', from: 'main' };
}

/** Node's rule for a file's module system; a file picked through the `module` field is ESM by convention. */
export function isCommonJsFile(path: string, manifestType: unknown, from?: 'exports' | 'module' | 'main'): boolean {
  const extension = extname(path);
  if (extension === '.mjs') return false;
  if (extension === '.cjs') return true;
  if (from === 'module') return false;
  return manifestType !== 'module';
}

function rootExport(exports: unknown): unknown {
  if (typeof exports === 'string' || Array.isArray(exports)) return exports;
  if (!isObject(exports)) return undefined;
  const keys = Object.keys(exports);
  // A subpath map ({ ".": …, "./x": … }) or a conditions object standing for "." itself.
  return keys.some((key) => key.startsWith('.')) ? exports['.'] : exports;
}

function conditionalTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const candidate of target) {
      const resolved = conditionalTarget(candidate);
      if (resolved !== undefined) return resolved;
    }
    return undefined;
  }
  if (!isObject(target)) return undefined;
  for (const [condition, nested] of Object.entries(target)) {
    if (!IMPORT_CONDITIONS.has(condition)) continue;
    const resolved = conditionalTarget(nested);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
