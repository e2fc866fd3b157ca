import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ModuleLoadError } from './sourceErrors.js';
import { importModuleFile } from './typeScriptLoader.js';
import { isWorkflowDefinition, type WorkflowDefinition } from '../../core/definition/workflow.js';
import { resolvePackageExports, type DiscoveryWarning, type ExportBinding } from './exportGraph.js';
import { installedPackages, NO_MANIFEST, type InstalledPackage } from './installedPackages.js';
import { esmEntry, isCommonJsFile, isExposed } from './packageManifest.js';
import type { WorkflowExport } from './workflowExport.js';

export type { DiscoveryWarning } from './exportGraph.js';

export interface PackageDiscovery {
  /** Packaged workflows, packages by name, each in its entry's export order. */
  workflows: WorkflowExport[];
  warnings: DiscoveryWarning[];
  exposedPackages: { name: string; dir: string }[];
}

/**
 * The workflows of every package in `<projectDir>/node_modules` that sets `"flowgate": { "workflows": { "expose":
 * true } }`: from the package's ESM entry, static relative re-exports are followed to the modules that declare them
 * (exportGraph.ts), which are then imported in Node. Everything that stops a workflow from being found is a warning.
 */
export async function discoverPackagedWorkflows(projectDir: string): Promise<PackageDiscovery> {
  const discovery: PackageDiscovery = { workflows: [], warnings: [], exposedPackages: [] };
  for (const pkg of await installedPackages(projectDir)) {
    const manifestFile = join(pkg.dir, 'package.json');
    if (pkg.manifestError) {
      // A directory without package.json is not a package; a broken one might be an exposed package.
      if (pkg.manifestError !== NO_MANIFEST) discovery.warnings.push({ packageName: pkg.name, file: manifestFile, message: `${pkg.manifestError}; skipped` });
      continue;
    }
    if (typeof pkg.manifest !== 'object' || pkg.manifest === null || Array.isArray(pkg.manifest)) {
      discovery.warnings.push({ packageName: pkg.name, file: manifestFile, message: 'its package.json is not a JSON object; skipped' });
      continue;
    }
    const exposed = isExposed(pkg.manifest);
    if (exposed === 'malformed') {
      discovery.warnings.push({
        packageName: pkg.name,
        file: manifestFile,
        message: `"flowgate.workflows.expose" must be the boolean true to expose the package (found ${describeFlag(pkg.manifest as Record<string, unknown>)}); skipped`,
      });
      continue;
    }
    if (!exposed) continue;
    discovery.exposedPackages.push({ name: pkg.name, dir: pkg.dir });
    const found = await discoverPackage(pkg);
    discovery.workflows.push(...found.workflows);
    discovery.warnings.push(...found.warnings);
  }
  return discovery;
}

async function discoverPackage(pkg: InstalledPackage): Promise<{ workflows: WorkflowExport[]; warnings: DiscoveryWarning[] }> {
  const manifestFile = join(pkg.dir, 'package.json');
  const entry = esmEntry(pkg.manifest);
  if ('problem' in entry) return { workflows: [], warnings: [{ packageName: pkg.name, file: manifestFile, message: `no ESM entry: ${entry.problem}` }] };
  const entryFile = resolve(pkg.dir, entry.path);
  if (!isInside(pkg.dir, entryFile)) {
    return { workflows: [], warnings: [{ packageName: pkg.name, file: manifestFile, message: `its entry ${entry.path} (from "${entry.from}") is outside the package; skipped` }] };
  }
  const manifestType = (pkg.manifest as { type?: unknown }).type;
  if (isCommonJsFile(entryFile, manifestType, entry.from)) {
    return {
      workflows: [],
      warnings: [{ packageName: pkg.name, file: entryFile, message: 'the entry is CommonJS (set "type": "module" or use .mjs); CommonJS exports are not followed' }],
    };
  }
  const sources = new Map<string, Promise<string | undefined>>();
  const readSource = (file: string): Promise<string | undefined> => {
    let source = sources.get(file);
    if (!source) {
      source = readFile(file, 'utf8').catch(() => undefined);
      sources.set(file, source);
    }
    return source;
  };
  if ((await readSource(entryFile)) === undefined) {
    return { workflows: [], warnings: [{ packageName: pkg.name, file: manifestFile, message: `its entry ${entry.path} (from "${entry.from}") does not exist` }] };
  }
  const { bindings, warnings } = await resolvePackageExports(entryFile, pkg, readSource);
  const workflows: WorkflowExport[] = [];
  const found = new Set<WorkflowDefinition>();
  const modules = new Map<string, Promise<Record<string, unknown> | undefined>>();
  const assembled = new Map<unknown, { binding: ExportBinding; held: WorkflowDefinition[] }>();
  for (const binding of bindings.values()) {
    let module = modules.get(binding.file);
    if (!module) {
      module = importModule(binding.file).catch((error: unknown) => {
        warnings.push({ packageName: pkg.name, file: binding.file, message: `importing the module failed: ${error instanceof ModuleLoadError ? error.reason : String(error)}` });
        return undefined;
      });
      modules.set(binding.file, module);
    }
    const value = (await module)?.[binding.localName];
    if (isWorkflowDefinition(value)) {
      // The same definition under two export names is one workflow. Two definitions of one name are both kept:
      // the worker's one name space (workerWorkflows.ts) refuses them, as it does every other collision.
      if (found.has(value)) continue;
      found.add(value);
      workflows.push({
        modulePath: binding.file,
        exportName: binding.localName,
        definition: value,
        origin: { kind: 'package', packageName: pkg.name, packageDir: pkg.dir, file: binding.file },
      });
    } else {
      const held = workflowsHeldBy(value);
      // Keyed by the object itself: one collection exported or re-exported under several names is one finding.
      if (held.length > 0 && !assembled.has(value)) assembled.set(value, { binding, held });
    }
  }
  // After all bindings, so that the advice can say which of the held workflows are served by name already.
  for (const { binding, held } of assembled.values()) warnings.push(assembledAtRunTime(pkg.name, binding, held, found));
  return { workflows, warnings };
}

function importModule(file: string): Promise<Record<string, unknown>> {
  return importModuleFile(file);
}

/** Workflow definitions inside an exported object or array: exports assembled at run time. */
function workflowsHeldBy(value: unknown): WorkflowDefinition[] {
  if (typeof value !== 'object' || value === null) return [];
  const members = Array.isArray(value) ? value : Object.values(value);
  return members.filter(isWorkflowDefinition);
}

function assembledAtRunTime(packageName: string, binding: ExportBinding, held: WorkflowDefinition[], served: Set<WorkflowDefinition>): DiscoveryWarning {
  const quote = (definitions: WorkflowDefinition[]) => definitions.map((definition) => `"${definition.name}"`).join(', ');
  const exported = binding.localName === 'default' ? 'the default export' : `export "${binding.localName}"`;
  const already = held.filter((definition) => served.has(definition));
  return {
    packageName,
    file: binding.file,
    line: binding.line,
    message:
      `${exported} is assembled at run time and holds workflows ${quote(held)}; it is not followed: export each workflow by name` +
      (already.length > 0 ? ` (${quote(already)} ${already.length === 1 ? 'is' : 'are'} already served through its own export)` : ''),
  };
}

/**
 * One log line: `package <name>: <file>[:<line>]: <message>`. The file is shown from the `node_modules` that holds
 * the package on (`node_modules/@acme/flows/dist/index.js`), as the author of the package and the user of the worker
 * both recognise it; relative to `projectDir` instead when given and the file is inside it; else absolute.
 */
export function formatDiscoveryWarning(warning: DiscoveryWarning, projectDir?: string): string {
  const inProject = projectDir !== undefined && isInside(projectDir, warning.file) ? relative(projectDir, warning.file) : undefined;
  const shown = inProject ?? fromNodeModules(warning.file, warning.packageName) ?? warning.file;
  // A message never spans lines, so that one warning is one log line whatever an error message held.
  const message = warning.message.split(/\r?\n/).join(' ');
  return `package ${warning.packageName}: ${shown}${warning.line !== undefined ? `:${warning.line}` : ''}: ${message}`;
}

/** `node_modules/<packageName>/…` cut from the path, at the last place the package's own directory appears. */
function fromNodeModules(file: string, packageName: string): string | undefined {
  const marker = ['node_modules', ...packageName.split('/')].join(sep);
  const at = file.lastIndexOf(`${sep}${marker}${sep}`);
  if (at !== -1) return file.slice(at + 1);
  return file.endsWith(`${sep}${marker}`) ? marker : undefined;
}

function isInside(dir: string, file: string): boolean {
  const path = relative(dir, file);
  return path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}

function describeFlag(manifest: Record<string, unknown>): string {
  const flowgate = manifest.flowgate as { workflows?: { expose?: unknown } } | undefined;
  const value = typeof flowgate === 'object' && flowgate !== null && typeof flowgate.workflows === 'object' && flowgate.workflows !== null ? flowgate.workflows.expose : flowgate;
  return JSON.stringify(value) ?? String(value);
}

