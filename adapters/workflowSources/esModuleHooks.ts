// Node module customization hooks (module.register): they run on Node's hooks thread, not in the process's own, so
// this file imports nothing of flowgate and keeps its state to itself.
//
// A project made by `npm init -y` says `"type": "commonjs"`, which makes Node (and tsx after it) load its `.ts` and
// `.js` files as CommonJS: a file's `import { workflow } from 'flowgate'` becomes a require() of an ES module, which
// fails or not depending on the Node release and on what else is loading at that moment ("Cannot require() ES Module
// ... in a cycle", "module not been linked"), and a `.js` file's `import` is a syntax error. Workflow, step and hook
// files are written as ES modules whatever the project's type, so the files flowgate imports, and the project's files
// they import in turn, are given the `module` format here: every TypeScript file, and every JavaScript file written
// with import or export statements (a `.js` file written as CommonJS stays CommonJS). tsx, when it runs, compiles
// them as ES modules then. Files in node_modules keep their package's format, and files the application imports
// itself, outside flowgate's imports, keep the format Node gives them.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';

interface ResolveContext {
  parentURL?: string | undefined;
  conditions: string[];
  importAttributes: Record<string, string>;
}

interface ResolveResult {
  url: string;
  format?: string | null | undefined;
  shortCircuit?: boolean | undefined;
}

type NextResolve = (specifier: string, context: ResolveContext) => Promise<ResolveResult>;

/** What typeScriptLoader.ts passes to register(): the URL of the module whose import() loads the project's files. */
export interface EsModuleHooksData {
  importerUrl: string;
}

const TYPESCRIPT_FILE = /\.(ts|tsx)$/;
const JAVASCRIPT_FILE = /\.js$/;
const IN_NODE_MODULES = /\/node_modules\//;
const MODULE_STATEMENTS = new Set(['ImportDeclaration', 'ExportNamedDeclaration', 'ExportDefaultDeclaration', 'ExportAllDeclaration']);

let importerUrl: string | undefined;
/** The URLs given the module format: the files flowgate imported and the project files reached from them. */
const projectModules = new Set<string>();

export function initialize(data: EsModuleHooksData): void {
  importerUrl = data.importerUrl;
}

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<ResolveResult> {
  const resolved = await nextResolve(specifier, context);
  const parent = context.parentURL;
  if (parent === undefined || (parent !== importerUrl && !projectModules.has(parent))) return resolved;
  if (!isProjectFile(resolved.url)) return resolved;
  if (projectModules.has(resolved.url) || resolved.format === 'module' || (await writtenAsEsModule(resolved.url))) {
    projectModules.add(resolved.url);
    return { ...resolved, format: esModuleFormat(resolved.format) };
  }
  return resolved;
}

/**
 * The ES module counterpart of the format resolved so far. Node (22.18 and later) resolves a `.ts` file to a
 * `*-typescript` format, which tsx, when it runs after these hooks, turns into its JavaScript counterpart and compiles
 * for; where tsx does not run, Node strips the types itself.
 */
function esModuleFormat(format: string | null | undefined): string {
  return format === 'commonjs-typescript' || format === 'module-typescript' ? 'module-typescript' : 'module';
}

function isProjectFile(url: string): boolean {
  return url.startsWith('file:') && !IN_NODE_MODULES.test(new URL(url).pathname);
}

/**
 * A `.ts` or `.tsx` file (`.mts` and `.mjs` are modules anyway, `.cts` and `.cjs` CommonJS by their author's choice),
 * or a `.js` file with import or export statements.
 */
async function writtenAsEsModule(url: string): Promise<boolean> {
  const { pathname } = new URL(url);
  if (TYPESCRIPT_FILE.test(pathname)) return true;
  if (!JAVASCRIPT_FILE.test(pathname)) return false;
  try {
    const program = parse(await readFile(fileURLToPath(url), 'utf8'), { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
    return program.body.some((statement) => MODULE_STATEMENTS.has(statement.type));
  } catch {
    // Not readable, or not valid as a module: Node's own loading says what is wrong with it.
    return false;
  }
}
