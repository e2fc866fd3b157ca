import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'acorn';
import { simple } from 'acorn-walk';

/**
 * The specifiers a module imports statically (import declarations and re-exports; literal dynamic imports too, since
 * they load the module as well). JavaScript is parsed with acorn; TypeScript sources (only loadable in development,
 * under a TypeScript loader) with the TypeScript compiler's own import scanner.
 */
export async function staticImportSpecifiers(file: string): Promise<string[]> {
  const source = await readFile(file, 'utf8');
  const extension = extname(file);
  if (extension === '.ts' || extension === '.mts' || extension === '.tsx') return typeScriptImports(source, file);
  const program = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
  const specifiers: string[] = [];
  const literal = (node: unknown): void => {
    const value = (node as { type?: string; value?: unknown } | null | undefined);
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

async function typeScriptImports(source: string, file: string): Promise<string[]> {
  let ts: typeof import('typescript');
  try {
    ts = (await import('typescript')).default;
  } catch {
    throw new Error(`cannot read the imports of ${file}: TypeScript sources need the typescript package (a development dependency)`);
  }
  return ts.preProcessFile(source, true, true).importedFiles.map(({ fileName }) => fileName);
}
