import { dirname, relative, resolve, sep, isAbsolute } from 'node:path';
import { moduleFacts, ModuleSyntaxError, type ModuleFacts } from './moduleSyntax.js';

/** Where an exported name is declared: the module file and its name there. */
export interface ExportBinding {
  file: string;
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
  /** Exported name of the entry → the module that declares it. */
  bindings: Map<string, ExportBinding>;
  warnings: DiscoveryWarning[];
}

type ReadSource = (file: string) => Promise<string | undefined>;

/**
 * Follows a package entry's static re-exports with relative paths down to the modules that declare the exports, as
 * an ES module linker would (`export *` never includes `default` nor overrides an explicit export). Everything not
 * followed becomes a warning at its file and line; cycles end where they close.
 */
export async function resolvePackageExports(entryFile: string, pkg: { name: string; dir: string }, readSource: ReadSource): Promise<PackageExports> {
  const warnings: DiscoveryWarning[] = [];
  const facts = new Map<string, ModuleFacts | undefined>();
  const warned = new Set<string>();
  const warn = (file: string, line: number | undefined, message: string): void => {
    const key = `${file}:${line}:${message}`;
    if (warned.has(key)) return;
    warned.add(key);
    warnings.push({ packageName: pkg.name, file, ...(line !== undefined ? { line } : {}), message });
  };

  const factsOf = async (file: string): Promise<ModuleFacts | undefined> => {
    if (facts.has(file)) return facts.get(file);
    facts.set(file, undefined);
    const source = await readSource(file);
    if (source === undefined) return undefined;
    try {
      const parsed = moduleFacts(source);
      for (const form of parsed.unsupported) warn(file, form.line, form.message);
      facts.set(file, parsed);
      return parsed;
    } catch (error) {
      if (!(error instanceof ModuleSyntaxError)) throw error;
      warn(file, error.line, `syntax error, the module is skipped: ${error.message}`);
      return undefined;
    }
  };

  /** The relative target of a re-export, or undefined with a warning. */
  const target = async (from: string, specifier: string, line: number): Promise<string | undefined> => {
    if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
      warn(from, line, `re-export from "${specifier}" is not followed: only relative paths inside the package are (expose that package itself)`);
      return undefined;
    }
    const file = resolve(dirname(from), specifier);
    if (!inside(pkg.dir, file)) {
      warn(from, line, `re-export from "${specifier}" leaves the package directory and is not followed`);
      return undefined;
    }
    if ((await readSource(file)) === undefined) {
      warn(from, line, `re-export from "${specifier}": file not found (${relative(pkg.dir, file)}); ESM paths need the full file name`);
      return undefined;
    }
    return file;
  };

  const resolved = new Map<string, Map<string, ExportBinding>>();
  const exportsOf = async (file: string, visiting: Set<string>): Promise<Map<string, ExportBinding>> => {
    const done = resolved.get(file);
    if (done) return done;
    // A cycle closes here: the names of this module are being collected further up the chain.
    if (visiting.has(file)) return new Map();
    visiting.add(file);
    const names = new Map<string, ExportBinding>();
    const parsed = await factsOf(file);
    let complete = true;
    if (parsed) {
      for (const local of parsed.localExports) names.set(local.exported, { file, localName: local.localName, line: local.line });
      for (const reexport of parsed.reexports) {
        if (reexport.kind !== 'named') continue;
        const to = await target(file, reexport.specifier, reexport.line);
        if (!to) continue;
        if (visiting.has(to)) complete = false;
        const binding = (await exportsOf(to, visiting)).get(reexport.imported);
        if (binding) names.set(reexport.exported, binding);
        else if (!visiting.has(to)) warn(file, reexport.line, `"${reexport.imported}" is not exported by ${reexport.specifier}`);
      }
      for (const reexport of parsed.reexports) {
        if (reexport.kind !== 'star') continue;
        const to = await target(file, reexport.specifier, reexport.line);
        if (!to) continue;
        if (visiting.has(to)) complete = false;
        for (const [name, binding] of await exportsOf(to, visiting)) {
          if (name !== 'default' && !names.has(name)) names.set(name, binding);
        }
      }
    }
    visiting.delete(file);
    // A module whose chain was cut by a cycle is resolved again from its next starting point, so none of it is lost.
    if (complete) resolved.set(file, names);
    return names;
  };

  return { bindings: await exportsOf(entryFile, new Set()), warnings };
}

function inside(dir: string, file: string): boolean {
  const path = relative(dir, file);
  return path !== '' && !path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path);
}
