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
 * `"flowgate": { "workflows": { "expose": true } }`. Only the boolean `true` exposes: a package author must opt in
 * on purpose. A flag that is present but not a boolean (or a `flowgate`/`workflows` key that is not an object) is
 * 'malformed', so the caller can tell the author instead of silently ignoring an intent to expose.
 */
export function isExposed(manifest: unknown): boolean | 'malformed' {
  if (!isObject(manifest) || !('flowgate' in manifest)) return false;
  const flowgate = manifest.flowgate;
  if (!isObject(flowgate)) return 'malformed';
  if (!('workflows' in flowgate)) return false;
  const workflows = flowgate.workflows;
  if (!isObject(workflows)) return 'malformed';
  if (!('expose' in workflows)) return false;
  if (typeof workflows.expose !== 'boolean') return 'malformed';
  return workflows.expose;
}

export type EsmEntry = { path: string; from: 'exports' | 'module' | 'main' } | { problem: string };

// The conditions Node matches for an `import` (plus `default`, which always matches); whichever comes first in the
// conditions object wins, because Node walks the keys in object order, not in an order of its own.
const IMPORT_CONDITIONS = new Set(['import', 'node', 'default']);

/**
 * The file an `import 'pkg'` loads: `exports["."]` when `exports` is present, else the `module` field (bundler
 * convention for an ESM build), else `main`, else `index.js`. When `exports` exists but offers no ESM target for ".",
 * there is no entry at all: Node would not fall back to `main` either.
 */
export function esmEntry(manifest: unknown): EsmEntry {
  const fields: PackageManifest = isObject(manifest) ? manifest : {};
  if (fields.exports !== undefined && fields.exports !== null) {
    const root = rootExport(fields.exports);
    if ('problem' in root) return root;
    const target = resolveTarget(root.target);
    if (target === undefined) return { problem: 'its "exports" has no ESM target for "." (an "import", "node" or "default" condition)' };
    if (target === null) return { problem: 'its "exports" excludes "." for ESM imports (the matching condition is null)' };
    if (typeof target !== 'string') return { problem: `its "exports" target for "." is invalid: ${target.invalid}` };
    return { path: target, from: 'exports' };
  }
  if (typeof fields.module === 'string' && fields.module.length > 0) return { path: fields.module, from: 'module' };
  if (typeof fields.main === 'string' && fields.main.length > 0) return { path: fields.main, from: 'main' };
  return { path: 'index.js', from: 'main' };
}

/**
 * Whether Node loads `path` as CommonJS: `.cjs` always, `.mjs` never, anything else by the package's `type`. A file
 * picked through the `module` field is ESM whatever `type` says: that field only ever names an ESM build.
 */
export function isCommonJsFile(path: string, manifestType: unknown, from?: 'exports' | 'module' | 'main'): boolean {
  const extension = extname(path);
  if (extension === '.mjs') return false;
  if (extension === '.cjs') return true;
  if (from === 'module') return false;
  return manifestType !== 'module';
}

/** The value standing for ".": `exports` itself (a string, an array, a conditions object) or its "." subpath. */
function rootExport(exports: unknown): { target: unknown } | { problem: string } {
  if (!isObject(exports)) return { target: exports };
  const keys = Object.keys(exports);
  const subpaths = keys.filter((key) => key.startsWith('.'));
  // Node refuses an object mixing subpaths and conditions (ERR_INVALID_PACKAGE_CONFIG), so discovery does too.
  if (subpaths.length > 0 && subpaths.length < keys.length) {
    return { problem: 'its "exports" mixes subpaths (keys starting with ".") and conditions, which Node refuses' };
  }
  return subpaths.length > 0 ? { target: exports['.'] } : { target: exports };
}

type TargetResolution = string | null | undefined | { invalid: string };

/**
 * Node's PACKAGE_TARGET_RESOLVE for ".": undefined means "no match, keep looking"; null means "explicitly not
 * exported", which stops the search just as a string does.
 */
function resolveTarget(target: unknown): TargetResolution {
  if (target === null) return null;
  if (typeof target === 'string') {
    // Targets are package-relative URLs; Node rejects bare names and paths that climb out (`./../x`).
    if (!target.startsWith('./')) return { invalid: `"${target}" must start with "./"` };
    if (target.split(/[\\/]/).slice(1).some((segment) => segment === '..' || segment === '.' || segment === 'node_modules')) {
      return { invalid: `"${target}" may not contain ".", ".." or "node_modules" segments after the leading "./"` };
    }
    return target;
  }
  if (Array.isArray(target)) {
    // A fallback array: an invalid entry lets the next one try; the last outcome is the answer.
    let last: TargetResolution = undefined;
    for (const candidate of target) {
      const resolved = resolveTarget(candidate);
      if (typeof resolved === 'object' && resolved !== null) {
        last = resolved;
        continue;
      }
      if (resolved === undefined) continue;
      return resolved;
    }
    return last;
  }
  if (!isObject(target)) return undefined;
  for (const [condition, nested] of Object.entries(target)) {
    if (!IMPORT_CONDITIONS.has(condition)) continue;
    const resolved = resolveTarget(nested);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
