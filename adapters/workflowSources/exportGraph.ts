import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { moduleFacts, ModuleSyntaxError, type ModuleFacts, type Reexport } from './moduleSyntax.js';

/** Where an exported name is declared. */
export interface ExportBinding {
  /** The declaring module. */
  file: string;
  /**
   * The declaring module's own export name for it (`b` for `const a = …; export { a as b }`): what
   * `import { b } from file` or `namespace[b]` reads, so the generated Temporal entry can import exactly this.
   */
  localName: string;
  line: number;
}

/** A reason a workflow may be missing, at a place in a package. */
export interface DiscoveryWarning {
  packageName: string;
  /** Absolute path of the file the finding is in. */
  file: string;
  line?: number;
  message: string;
}

export interface PackageExports {
  /** Exported name of the entry → the module that declares it, in the order the entry exports them. */
  bindings: Map<string, ExportBinding>;
  warnings: DiscoveryWarning[];
}

type ReadSource = (file: string) => Promise<string | undefined>;

/** What resolving one exported name ends with (ResolveExport of the ECMAScript spec, plus "already warned"). */
type Resolution =
  | { kind: 'found'; binding: ExportBinding }
  | { kind: 'missing' }
  | { kind: 'circular' }
  | { kind: 'ambiguous'; file: string; line: number; name: string; first: ExportBinding; second: ExportBinding }
  // Something on the way did not load (missing file, syntax error, refused specifier): that was warned already.
  | { kind: 'broken' };

/**
 * Follows a package entry's static re-exports with relative specifiers down to the modules that declare the exports,
 * by the same rules as an ES module linker (GetExportedNames / ResolveExport): `export *` never carries `default` and
 * never overrides an explicit export, two `export *` offering different bindings for one name make it ambiguous, and
 * cycles end because each (module, name) is visited at most once per resolution. Nothing is executed.
 */
export async function resolvePackageExports(entryFile: string, pkg: { name: string; dir: string }, readSource: ReadSource): Promise<PackageExports> {
  const sources = new Map<string, Promise<string | undefined>>();
  const read = (file: string): Promise<string | undefined> => {
    let source = sources.get(file);
    if (!source) sources.set(file, (source = readSource(file)));
    return source;
  };
  const warnings: DiscoveryWarning[] = [];
  const warned = new Set<string>();
  const warn = (file: string, line: number | undefined, message: string): void => {
    // The same finding can be reached along several re-export paths; it is still one finding.
    const key = `${file}\0${line}\0${message}`;
    if (warned.has(key)) return;
    warned.add(key);
    warnings.push({ packageName: pkg.name, file, ...(line !== undefined ? { line } : {}), message });
  };

  // Reading is asynchronous and resolution is not: load the whole reachable graph first, each file once.
  const modules = new Map<string, ModuleFacts | undefined>();
  const targets = new Map<Reexport, string | undefined>();
  const load = async (file: string): Promise<void> => {
    if (modules.has(file)) return;
    modules.set(file, undefined);
    const source = await read(file);
    if (source === undefined) return;
    let facts: ModuleFacts;
    try {
      facts = moduleFacts(source);
    } catch (error) {
      if (!(error instanceof ModuleSyntaxError)) throw error;
      warn(file, error.line, `syntax error, the module is skipped: ${error.message}`);
      return;
    }
    modules.set(file, facts);
    for (const form of facts.unsupported) warn(file, form.line, form.message);
    for (const reexport of facts.reexports) {
      const target = await reexportTarget(file, reexport);
      targets.set(reexport, target);
      if (target !== undefined) await load(target);
    }
  };

  /** The file a re-export's specifier names, or undefined (with a warning) when discovery does not follow it. */
  const reexportTarget = async (from: string, { specifier, line }: Reexport): Promise<string | undefined> => {
    const file = resolveSpecifier(from, specifier);
    if (file === undefined) {
      const reason = hasScheme(specifier)
        ? 'it is not a file of this package'
        : 'it names another package (expose that package itself, or export the workflow from a file of this one)';
      warn(from, line, `re-export from "${specifier}" is not followed: ${reason}`);
      return undefined;
    }
    if (!isInside(pkg.dir, file)) {
      warn(from, line, `re-export from "${specifier}" leaves the package directory and is not followed`);
      return undefined;
    }
    if ((await read(file)) === undefined) {
      warn(
        from,
        line,
        `re-export from "${specifier}": file not found (${relative(pkg.dir, file)}); ESM specifiers name the full file: no extension is added and no directory index is looked up`,
      );
      return undefined;
    }
    return file;
  };

  await load(entryFile);

  const exportedNames = (file: string, visited: Set<string>): string[] => {
    if (visited.has(file)) return [];
    visited.add(file);
    const facts = modules.get(file);
    if (!facts) return [];
    const names = [...facts.localExports.map(({ exported }) => exported)];
    for (const reexport of facts.reexports) if (reexport.kind === 'named' && !names.includes(reexport.exported)) names.push(reexport.exported);
    for (const reexport of facts.reexports) {
      const target = reexport.kind === 'star' ? targets.get(reexport) : undefined;
      if (target === undefined) continue;
      for (const name of exportedNames(target, visited)) if (name !== 'default' && !names.includes(name)) names.push(name);
    }
    return names;
  };

  // `resolving` is never shrunk during one top-level resolution, as in ECMAScript's ResolveExport: a module reached a second time
  // (a cycle, or a diamond of `export *`) has already given its answer along the first path.
  const resolveExport = (file: string, name: string, resolving: Set<string>): Resolution => {
    const key = `${file}\0${name}`;
    if (resolving.has(key)) return { kind: 'circular' };
    resolving.add(key);
    const facts = modules.get(file);
    if (!facts) return { kind: 'broken' };
    const local = facts.localExports.find(({ exported }) => exported === name);
    if (local) return { kind: 'found', binding: { file, localName: local.exported, line: local.line } };
    const named = facts.reexports.find((reexport) => reexport.kind === 'named' && reexport.exported === name);
    if (named?.kind === 'named') {
      const target = targets.get(named);
      return target === undefined ? { kind: 'broken' } : resolveExport(target, named.imported, resolving);
    }
    if (name === 'default') return { kind: 'missing' };
    let found: { binding: ExportBinding } | undefined;
    let broken = false;
    for (const reexport of facts.reexports) {
      if (reexport.kind !== 'star') continue;
      const target = targets.get(reexport);
      if (target === undefined) {
        broken = true;
        continue;
      }
      const resolution = resolveExport(target, name, resolving);
      if (resolution.kind === 'ambiguous') return resolution;
      if (resolution.kind === 'broken') broken = true;
      if (resolution.kind !== 'found') continue;
      if (!found) found = resolution;
      else if (found.binding.file !== resolution.binding.file || found.binding.localName !== resolution.binding.localName) {
        return { kind: 'ambiguous', file, line: reexport.line, name, first: found.binding, second: resolution.binding };
      }
    }
    if (found) return { kind: 'found', binding: found.binding };
    return broken ? { kind: 'broken' } : { kind: 'missing' };
  };

  const reportAmbiguity = (resolution: Extract<Resolution, { kind: 'ambiguous' }>): void => {
    const where = (binding: ExportBinding) => relative(pkg.dir, binding.file);
    warn(
      resolution.file,
      resolution.line,
      `"${resolution.name}" is exported by two "export *" (${where(resolution.first)} and ${where(resolution.second)}), so it is ambiguous and not exported; export it by name`,
    );
  };

  const bindings = new Map<string, ExportBinding>();
  for (const name of exportedNames(entryFile, new Set())) {
    const resolution = resolveExport(entryFile, name, new Set());
    if (resolution.kind === 'found') bindings.set(name, resolution.binding);
    else if (resolution.kind === 'ambiguous') reportAmbiguity(resolution);
  }

  // Every named re-export in the graph is checked, not only those the entry's names pass through: a broken one is
  // a finding even when another export happens to shadow it.
  for (const [file, facts] of modules) {
    for (const reexport of facts?.reexports ?? []) {
      const target = targets.get(reexport);
      if (reexport.kind !== 'named' || target === undefined) continue;
      const resolution = resolveExport(target, reexport.imported, new Set([`${file}\0${reexport.exported}`]));
      if (resolution.kind === 'missing') warn(file, reexport.line, `"${reexport.imported}" is not exported by ${reexport.specifier}`);
      else if (resolution.kind === 'circular') warn(file, reexport.line, `"${reexport.imported}" from ${reexport.specifier} is re-exported in a circle and never declared`);
      else if (resolution.kind === 'ambiguous') reportAmbiguity(resolution);
    }
  }

  return { bindings, warnings };
}

/**
 * The file an import specifier names, resolved as Node's ESM resolver does: as a URL against the importing file
 * (so `%20` decodes and `?query`/`#hash` are dropped), with no extension added and no directory index. Undefined for
 * bare specifiers (other packages) and non-file URLs (`node:`, `data:`).
 */
export function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!isPathSpecifier(specifier) && !specifier.startsWith('file:')) return undefined;
  try {
    const url = new URL(specifier, pathToFileURL(from));
    if (url.protocol !== 'file:') return undefined;
    // Node refuses encoded separators in a path (ERR_INVALID_MODULE_SPECIFIER); such a file is never loaded.
    const path = url.pathname.toLowerCase();
    if (path.includes('%2f') || path.includes('%5c')) return undefined;
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

function isPathSpecifier(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('/');
}

/** `node:fs`, `data:…`, `file:…`: a URL rather than a package name (package names cannot hold a colon). */
function hasScheme(specifier: string): boolean {
  return specifier.includes(':');
}

function isInside(dir: string, file: string): boolean {
  const path = relative(dir, file);
  return path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}
