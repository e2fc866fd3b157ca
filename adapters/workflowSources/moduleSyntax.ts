import { parse, type Node as AcornNode } from 'acorn';
import { ancestor } from 'acorn-walk';

/** A module export this module declares itself. */
export interface LocalExport {
  exported: string;
  localName: string;
  line: number;
}

/** A static re-export: named (`export { x as y } from`, or an import that is exported again) or star (`export *`). */
export type Reexport =
  | { kind: 'named'; exported: string; imported: string; specifier: string; line: number }
  | { kind: 'star'; specifier: string; line: number };

export type UnsupportedKind = 'namespace-reexport' | 'namespace-import-exported' | 'dynamic-import' | 'require' | 'commonjs-export';

export interface UnsupportedForm {
  kind: UnsupportedKind;
  line: number;
  message: string;
}

export interface ModuleFacts {
  localExports: LocalExport[];
  reexports: Reexport[];
  unsupported: UnsupportedForm[];
}

/** A module that does not parse as an ES module; `line` is where acorn stopped. */
export class ModuleSyntaxError extends Error {
  override name = 'ModuleSyntaxError';
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

type AnyNode = AcornNode & Record<string, any>;

/** What discovery needs to know of a module's exports, read from its syntax tree (acorn), never by pattern matching. */
export function moduleFacts(source: string): ModuleFacts {
  const program = parseModule(source);
  const imports = importedBindings(program);
  const facts: ModuleFacts = { localExports: [], reexports: [], unsupported: [] };
  for (const statement of program.body as AnyNode[]) {
    const line = lineOf(statement);
    if (statement.type === 'ExportAllDeclaration') {
      const specifier = String(statement.source.value);
      if (statement.exported) {
        const name = nameOf(statement.exported);
        facts.unsupported.push({
          kind: 'namespace-reexport',
          line,
          message: `namespace re-export "export * as ${name} from '${specifier}'" is not followed; use export * from '${specifier}' or named re-exports`,
        });
      } else {
        facts.reexports.push({ kind: 'star', specifier, line });
      }
    } else if (statement.type === 'ExportNamedDeclaration') {
      if (statement.source) {
        const specifier = String(statement.source.value);
        for (const specifierNode of statement.specifiers as AnyNode[]) {
          facts.reexports.push({ kind: 'named', exported: nameOf(specifierNode.exported), imported: nameOf(specifierNode.local), specifier, line: lineOf(specifierNode) });
        }
      } else if (statement.declaration) {
        for (const name of declaredNames(statement.declaration)) facts.localExports.push({ exported: name, localName: name, line });
      } else {
        for (const specifierNode of statement.specifiers as AnyNode[]) {
          const localName = nameOf(specifierNode.local);
          const exported = nameOf(specifierNode.exported);
          const imported = imports.get(localName);
          const at = lineOf(specifierNode);
          if (!imported) facts.localExports.push({ exported, localName, line: at });
          else if (imported.imported === '*') {
            facts.unsupported.push({
              kind: 'namespace-import-exported',
              line: at,
              message: `namespace import "${localName}" (import * as ${localName} from '${imported.specifier}') is exported as "${exported}" and not followed; re-export the workflows by name`,
            });
          } else facts.reexports.push({ kind: 'named', exported, imported: imported.imported, specifier: imported.specifier, line: at });
        }
      }
    } else if (statement.type === 'ExportDefaultDeclaration') {
      facts.localExports.push({ exported: 'default', localName: 'default', line });
    }
  }
  facts.unsupported.push(...dynamicForms(program));
  facts.unsupported.sort((a, b) => a.line - b.line);
  return facts;
}

/** The names a module defines itself (not those it re-exports); undefined when acorn cannot read it (TypeScript). */
export function locallyDefinedExportNames(source: string): Set<string> | undefined {
  try {
    return new Set(moduleFacts(source).localExports.map(({ exported }) => exported));
  } catch {
    return undefined;
  }
}

function parseModule(source: string): AnyNode {
  try {
    return parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true, allowHashBang: true }) as AnyNode;
  } catch (error) {
    const line = (error as { loc?: { line?: number } }).loc?.line;
    throw new ModuleSyntaxError(error instanceof Error ? error.message : String(error), line);
  }
}

function importedBindings(program: AnyNode): Map<string, { imported: string; specifier: string }> {
  const bindings = new Map<string, { imported: string; specifier: string }>();
  for (const statement of program.body as AnyNode[]) {
    if (statement.type !== 'ImportDeclaration') continue;
    const specifier = String(statement.source.value);
    for (const binding of statement.specifiers as AnyNode[]) {
      const imported =
        binding.type === 'ImportNamespaceSpecifier' ? '*' : binding.type === 'ImportDefaultSpecifier' ? 'default' : nameOf(binding.imported);
      bindings.set(binding.local.name, { imported, specifier });
    }
  }
  return bindings;
}

function declaredNames(declaration: AnyNode): string[] {
  if (declaration.type === 'VariableDeclaration') return (declaration.declarations as AnyNode[]).flatMap((declarator) => patternNames(declarator.id));
  return declaration.id ? [declaration.id.name as string] : [];
}

function patternNames(pattern: AnyNode | null): string[] {
  if (!pattern) return [];
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name];
    case 'ObjectPattern':
      return (pattern.properties as AnyNode[]).flatMap((property) => patternNames(property.type === 'RestElement' ? property.argument : property.value));
    case 'ArrayPattern':
      return (pattern.elements as (AnyNode | null)[]).flatMap((element) => patternNames(element));
    case 'RestElement':
      return patternNames(pattern.argument);
    case 'AssignmentPattern':
      return patternNames(pattern.left);
    default:
      return [];
  }
}

/** Dynamic import(), require() and CommonJS exports anywhere in the module. */
function dynamicForms(program: AnyNode): UnsupportedForm[] {
  const found: UnsupportedForm[] = [];
  const shadowed = (ancestors: AnyNode[], name: string): boolean => declaresInScope(ancestors, name);
  ancestor(program, {
    ImportExpression(node: AnyNode) {
      const literal = node.source.type === 'Literal' && typeof node.source.value === 'string';
      found.push({
        kind: 'dynamic-import',
        line: lineOf(node),
        message: literal
          ? `dynamic import('${node.source.value}') is not followed; use a static re-export`
          : 'dynamic import() with a computed path is not followed; use static re-exports',
      });
    },
    CallExpression(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      if (node.callee.type === 'Identifier' && node.callee.name === 'require' && !shadowed(ancestors, 'require')) {
        const argument = node.arguments[0] as AnyNode | undefined;
        const literal = argument?.type === 'Literal' && typeof argument.value === 'string';
        found.push({
          kind: 'require',
          line: lineOf(node),
          message: literal ? `CommonJS require('${argument.value}') is not followed; use ESM` : 'CommonJS require() with a computed path is not followed; use ESM',
        });
      }
      if (isDefinePropertyOnExports(node)) {
        found.push({ kind: 'commonjs-export', line: lineOf(node), message: 'CommonJS export Object.defineProperty(exports, …) is not followed; use ESM export' });
      }
    },
    AssignmentExpression(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      const target = commonJsTarget(node.left);
      if (target && !shadowed(ancestors, target.split('.')[0]!)) {
        found.push({ kind: 'commonjs-export', line: lineOf(node), message: `CommonJS export "${target} = …" is not followed; use ESM export` });
      }
    },
  } as never);
  return found;
}

/** `module.exports`, `module.exports.x`, `exports.x` (with computed keys shown as [...]). */
function commonJsTarget(node: AnyNode): string | undefined {
  if (node.type !== 'MemberExpression') return undefined;
  const object = node.object as AnyNode;
  const property = node.computed ? '[…]' : nameOf(node.property);
  if (object.type === 'Identifier' && object.name === 'module' && property === 'exports') return 'module.exports';
  if (object.type === 'Identifier' && object.name === 'exports') return `exports.${property}`;
  const inner = commonJsTarget(object);
  return inner === 'module.exports' ? `module.exports.${property}` : undefined;
}

function isDefinePropertyOnExports(node: AnyNode): boolean {
  const callee = node.callee as AnyNode;
  const target = node.arguments[0] as AnyNode | undefined;
  return (
    callee.type === 'MemberExpression' &&
    callee.object.type === 'Identifier' &&
    callee.object.name === 'Object' &&
    nameOf(callee.property) === 'defineProperty' &&
    ((target?.type === 'Identifier' && target.name === 'exports') || (target !== undefined && commonJsTarget(target) === 'module.exports'))
  );
}

/** Whether a function or the module declares `name` itself (then `require`/`exports` is an ordinary variable). */
function declaresInScope(ancestors: AnyNode[], name: string): boolean {
  return ancestors.some((node) => {
    if (node.type === 'Program' || node.type === 'BlockStatement') {
      return (node.body as AnyNode[]).some(
        (statement) =>
          (statement.type === 'VariableDeclaration' && declaredNames(statement).includes(name)) ||
          (statement.type === 'FunctionDeclaration' && statement.id?.name === name) ||
          (statement.type === 'ImportDeclaration' && (statement.specifiers as AnyNode[]).some((binding) => binding.local.name === name)),
      );
    }
    if (node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression') {
      return (node.params as AnyNode[]).some((param) => patternNames(param).includes(name));
    }
    return false;
  });
}

function nameOf(node: AnyNode): string {
  return node.type === 'Literal' ? String(node.value) : (node.name as string);
}

function lineOf(node: AnyNode): number {
  return node.loc?.start.line ?? 0;
}
