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
          message: `namespace re-export "export * as ${name} from '${specifier}'" is not followed; export each workflow by name (export { x } from '${specifier}')`,
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
          else if (imported.imported === '*') facts.unsupported.push(namespaceExported(localName, imported.specifier, exported, at));
          else facts.reexports.push({ kind: 'named', exported, imported: imported.imported, specifier: imported.specifier, line: at });
        }
      }
    } else if (statement.type === 'ExportDefaultDeclaration') {
      const declaration = statement.declaration as AnyNode;
      const imported = declaration.type === 'Identifier' ? imports.get(declaration.name as string) : undefined;
      // `export default ns` of a namespace import hands out an object of exports, just as `export { ns as default }`.
      if (imported?.imported === '*') facts.unsupported.push(namespaceExported(declaration.name as string, imported.specifier, 'default', line));
      else facts.localExports.push({ exported: 'default', localName: 'default', line });
    }
  }
  facts.unsupported.push(...dynamicForms(program));
  facts.unsupported.sort((a, b) => a.line - b.line);
  return facts;
}

function namespaceExported(localName: string, specifier: string, exported: string, line: number): UnsupportedForm {
  return {
    kind: 'namespace-import-exported',
    line,
    message: `namespace import "${localName}" (import * as ${localName} from '${specifier}') is exported as "${exported}" and not followed; export each workflow by name (export { x } from '${specifier}')`,
  };
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
      const path = literalPath(node.source);
      found.push({
        kind: 'dynamic-import',
        line: lineOf(node),
        message:
          path !== undefined
            ? `dynamic import('${path}') is not followed; use a static re-export (export { x } from '${path}')`
            : 'dynamic import() with a computed path is not followed; use static re-exports (export { x } from \'./x.js\')',
      });
    },
    CallExpression(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      if (node.callee.type === 'Identifier' && node.callee.name === 'require' && !shadowed(ancestors, 'require')) {
        const path = literalPath(node.arguments[0] as AnyNode | undefined);
        found.push({
          kind: 'require',
          line: lineOf(node),
          message:
            path !== undefined
              ? `CommonJS require('${path}') is not followed; use an ESM import or re-export`
              : 'CommonJS require() with a computed path is not followed; use an ESM import or re-export',
        });
      }
      const writer = objectWriterOnExports(node);
      if (writer && !shadowed(ancestors, writer.includes('module.exports') ? 'module' : 'exports')) {
        found.push({ kind: 'commonjs-export', line: lineOf(node), message: `CommonJS export ${writer} is not followed; use an ESM export` });
      }
    },
    AssignmentExpression(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      const target = commonJsTarget(node.left);
      if (target && !shadowed(ancestors, target.split('.')[0]!)) {
        found.push({ kind: 'commonjs-export', line: lineOf(node), message: `CommonJS export "${target} = …" is not followed; use an ESM export` });
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

// Object.defineProperty(exports, …) is how transpilers (tsc, Babel) write CommonJS exports; assign/defineProperties too.
const OBJECT_WRITERS = new Set(['defineProperty', 'defineProperties', 'assign']);

/** `Object.defineProperty(exports, …)` and its kin on `exports` or `module.exports`, as shown in the message. */
function objectWriterOnExports(node: AnyNode): string | undefined {
  const callee = node.callee as AnyNode;
  const target = node.arguments[0] as AnyNode | undefined;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.object.type !== 'Identifier' || callee.object.name !== 'Object') return undefined;
  const method = nameOf(callee.property);
  if (!OBJECT_WRITERS.has(method) || !target) return undefined;
  if (target.type === 'Identifier' && target.name === 'exports') return `Object.${method}(exports, …)`;
  return commonJsTarget(target) === 'module.exports' ? `Object.${method}(module.exports, …)` : undefined;
}

/** The path of `import('x')` or `require('x')` when it is written out (a string or a template without `${}`). */
function literalPath(node: AnyNode | undefined): string | undefined {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && (node.expressions as AnyNode[]).length === 0) return (node.quasis as AnyNode[])[0]?.value.cooked as string;
  return undefined;
}

/** Whether a function or the module declares `name` itself (then `require`/`exports` is an ordinary variable). */
function declaresInScope(ancestors: AnyNode[], name: string): boolean {
  return ancestors.some((node) => {
    if (node.type === 'Program' || node.type === 'BlockStatement') {
      return (node.body as AnyNode[]).some(
        (statement) =>
          (statement.type === 'VariableDeclaration' &&
            (statement.declarations as AnyNode[]).some((declarator) => patternNames(declarator.id).includes(name) && !isCreateRequire(declarator.init))) ||
          ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id?.name === name) ||
          (statement.type === 'ImportDeclaration' && (statement.specifiers as AnyNode[]).some((binding) => binding.local.name === name)),
      );
    }
    if (node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression') {
      return (node.params as AnyNode[]).some((param) => patternNames(param).includes(name));
    }
    return false;
  });
}

/** `createRequire(import.meta.url)`: a `require` made this way loads CommonJS all the same, so it is no shadow. */
function isCreateRequire(init: AnyNode | null | undefined): boolean {
  if (init?.type !== 'CallExpression') return false;
  const callee = init.callee as AnyNode;
  const name = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberExpression' && !callee.computed ? nameOf(callee.property) : undefined;
  return name === 'createRequire';
}

function nameOf(node: AnyNode): string {
  return node.type === 'Literal' ? String(node.value) : (node.name as string);
}

function lineOf(node: AnyNode): number {
  return node.loc?.start.line ?? 0;
}
