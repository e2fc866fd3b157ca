import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'acorn';
import { simple } from 'acorn-walk';
import { transform } from 'esbuild';
import { compilerMessageLine } from './loadFailure.js';

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.tsx']);

/**
 * The specifiers a module imports statically (import declarations and re-exports; literal dynamic imports too, since
 * they load the module as well), parsed with acorn. A TypeScript source first has its types stripped by esbuild, the
 * transformer of the loader that runs it (adapters/workflowSources/typeScriptLoader.ts): imports of types only are
 * not loads, every other import is kept as written (`verbatimModuleSyntax`), unused or not.
 */
export async function staticImportSpecifiers(file: string): Promise<string[]> {
  const source = await readFile(file, 'utf8');
  const javaScript = TYPESCRIPT_EXTENSIONS.has(extname(file)) ? await stripTypes(source, file) : source;
  const program = parse(javaScript, { ecmaVersion: 'latest', sourceType: 'module' });
  const specifiers: string[] = [];
  const literal = (node: unknown): void => {
    const value = node as { type?: string; value?: unknown } | null | undefined;
    if (value?.type === 'Literal' && typeof value.value === 'string') specifiers.push(value.value);
  };
  simple(program, {
    ImportDeclaration: (node) => literal(node.source),
    ExportNamedDeclaration: (node) => literal(node.source),
    ExportAllDeclaration: (node) => literal(node.source),
    ImportExpression: (node) => literal(node.source),
  });
  return specifiers;
}

async function stripTypes(source: string, file: string): Promise<string> {
  try {
    const { code } = await transform(source, {
      loader: extname(file) === '.tsx' ? 'tsx' : 'ts',
      format: 'esm',
      target: 'esnext',
      sourcefile: file,
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    });
    return code;
  } catch (error) {
    const reason = compilerMessageLine(error) ?? (error instanceof Error ? error.message.split('\n')[0] : String(error));
    throw new Error(`cannot read the imports of ${file}: ${reason}`);
  }
}
