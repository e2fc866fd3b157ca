import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { locallyDefinedExportNames, moduleFacts, ModuleSyntaxError } from '../../../adapters/workflowSources/moduleSyntax.js';

const lines = (...source: string[]) => source.join('\n');
const kindsAndLines = (source: string) => moduleFacts(source).unsupported.map(({ kind, line }) => [kind, line]);

test('local exports: declarations with every destructuring shape, functions, classes, default, and export lists', () => {
  const facts = moduleFacts(
    lines(
      'export const a = 1, { b, c: [d, , ...e], f = 2, ...g } = {};',
      'export let [h = 1, { i }] = [];',
      'export async function j() {}',
      'export function* k() {}',
      'export class L {}',
      'const hidden = 1, other = 2;',
      'export { hidden as shown, other };',
      'export { hidden as "with space" };',
      'export default class {}',
    ),
  );
  assert.equal(
    facts.localExports.map(({ exported, localName, line }) => [exported, localName, line]),
    [
      ['a', 'a', 1],
      ['b', 'b', 1],
      ['d', 'd', 1],
      ['e', 'e', 1],
      ['f', 'f', 1],
      ['g', 'g', 1],
      ['h', 'h', 2],
      ['i', 'i', 2],
      ['j', 'j', 3],
      ['k', 'k', 4],
      ['L', 'L', 5],
      ['shown', 'hidden', 7],
      ['other', 'other', 7],
      ['with space', 'hidden', 8],
      ['default', 'default', 9],
    ],
  );
  assert.equal(facts.reexports, []);
  assert.equal(facts.unsupported, []);
});

test('export default of an expression, a named function, or an imported binding is a local default export', () => {
  for (const source of ['export default 42;', 'export default function named() {}', "import { x } from './x.js';\nexport default x;"]) {
    assert.equal(moduleFacts(source).localExports.map(({ exported }) => exported), ['default'], source);
    assert.equal(moduleFacts(source).reexports, [], source);
  }
});

test('re-exports: named, renamed, default, star, bare specifiers kept as written, and imports exported again', () => {
  const facts = moduleFacts(
    lines(
      "export { x } from './a.js';",
      "export { y as z, default as w } from '../b.js';",
      "export * from './c.js';",
      "import { p, q as qq } from './d.js';",
      "import dflt, { r } from './e.js';",
      'export { p, qq as q2, dflt as e };',
      "export { other } from 'other-pkg';",
      "export { default } from './f.js';",
    ),
  );
  assert.equal(facts.reexports, [
    { kind: 'named', exported: 'x', imported: 'x', specifier: './a.js', line: 1 },
    { kind: 'named', exported: 'z', imported: 'y', specifier: '../b.js', line: 2 },
    { kind: 'named', exported: 'w', imported: 'default', specifier: '../b.js', line: 2 },
    { kind: 'star', specifier: './c.js', line: 3 },
    { kind: 'named', exported: 'p', imported: 'p', specifier: './d.js', line: 6 },
    { kind: 'named', exported: 'q2', imported: 'q', specifier: './d.js', line: 6 },
    { kind: 'named', exported: 'e', imported: 'default', specifier: './e.js', line: 6 },
    { kind: 'named', exported: 'other', imported: 'other', specifier: 'other-pkg', line: 7 },
    { kind: 'named', exported: 'default', imported: 'default', specifier: './f.js', line: 8 },
  ]);
  assert.equal(facts.localExports, []);
  assert.equal(facts.unsupported, [], 'a bare specifier is recorded; the graph walker reports it');
});

test('an export list spread over lines gives each name its own line', () => {
  const facts = moduleFacts(lines("import { a, b } from './ab.js';", 'export {', '  a,', '  b as c,', '};'));
  assert.equal(facts.reexports.map((reexport) => reexport.line), [3, 4]);
});

test('namespace re-export and namespace imports exported again are unsupported, with the advice to export by name', () => {
  const facts = moduleFacts(
    lines(
      "export * as ns from './x.js';",
      "import * as all from './all.js';",
      'export { all };',
      "import * as again from './again.js';",
      'export { again as renamed };',
      "import * as dflt from './dflt.js';",
      'export default dflt;',
    ),
  );
  assert.equal(
    facts.unsupported.map(({ kind, line }) => [kind, line]),
    [
      ['namespace-reexport', 1],
      ['namespace-import-exported', 3],
      ['namespace-import-exported', 5],
      ['namespace-import-exported', 7],
    ],
  );
  assert.is(
    facts.unsupported[0]!.message,
    "namespace re-export \"export * as ns from './x.js'\" is not followed; export each workflow by name (export { x } from './x.js')",
  );
  assert.match(facts.unsupported[1]!.message, /namespace import "all" \(import \* as all from '\.\/all\.js'\) is exported as "all"/);
  assert.match(facts.unsupported[2]!.message, /is exported as "renamed"/);
  assert.match(facts.unsupported[3]!.message, /is exported as "default"/);
  assert.equal(facts.localExports, [], 'a namespace is neither a local export');
  assert.equal(facts.reexports, [], 'nor a followed re-export');
});

test('dynamic import() says whether its path is written out or computed', () => {
  const facts = moduleFacts(
    lines(
      "const a = () => import('./lazy.js');",
      'const b = (name) => import(`./flows/${name}.js`);',
      'const c = () => import(`./plain.js`);',
      'const d = (path) => import(path);',
    ),
  );
  assert.equal(
    facts.unsupported.map(({ kind, line }) => [kind, line]),
    [
      ['dynamic-import', 1],
      ['dynamic-import', 2],
      ['dynamic-import', 3],
      ['dynamic-import', 4],
    ],
  );
  assert.match(facts.unsupported[0]!.message, /^dynamic import\('\.\/lazy\.js'\) is not followed/);
  assert.match(facts.unsupported[1]!.message, /computed path/);
  assert.match(facts.unsupported[2]!.message, /^dynamic import\('\.\/plain\.js'\)/, 'a template without ${} is a written-out path');
  assert.match(facts.unsupported[3]!.message, /computed path/);
});

test('require() calls, literal or computed, at any depth', () => {
  const facts = moduleFacts(lines("const a = require('./a.cjs');", 'function load(name) {', '  return require(`./${name}`);', '}'));
  assert.equal(
    facts.unsupported.map(({ kind, line }) => [kind, line]),
    [
      ['require', 1],
      ['require', 3],
    ],
  );
  assert.match(facts.unsupported[0]!.message, /require\('\.\/a\.cjs'\)/);
  assert.match(facts.unsupported[1]!.message, /computed path/);
});

test('every CommonJS export form', () => {
  assert.equal(
    kindsAndLines(
      lines(
        'module.exports = {};',
        'module.exports.thing = 1;',
        'exports.other = 2;',
        "exports['computed'] = 3;",
        "Object.defineProperty(exports, '__esModule', { value: true });",
        "Object.defineProperty(module.exports, 'x', { value: 1 });",
        'Object.assign(module.exports, { y: 1 });',
      ),
    ),
    [1, 2, 3, 4, 5, 6, 7].map((line) => ['commonjs-export', line]),
  );
  const messages = moduleFacts('module.exports.thing = 1;\nObject.defineProperty(exports, "x", {});').unsupported.map(({ message }) => message);
  assert.match(messages[0]!, /CommonJS export "module\.exports\.thing = …" is not followed/);
  assert.match(messages[1]!, /Object\.defineProperty\(exports, …\)/);
});

test('a local variable or parameter named require, exports or module is ordinary code; createRequire is still require', () => {
  assert.equal(
    kindsAndLines(
      lines(
        'const exports = {};',
        'exports.x = 1;',
        'function load(require) { return require("x"); }',
        'const f = (module) => { module.exports = 1; };',
        'class Registry { define() { const exports = {}; Object.defineProperty(exports, "a", {}); } }',
      ),
    ),
    [],
  );
  assert.equal(kindsAndLines(lines("import { createRequire } from 'node:module';", 'const require = createRequire(import.meta.url);', "require('./legacy.cjs');")), [
    ['require', 3],
  ]);
});

test('unsupported forms are listed in line order, whatever their kind', () => {
  const found = kindsAndLines(lines('const x = () => import("./a.js");', "export * as ns from './b.js';", 'exports.y = 1;'));
  assert.equal(found, [
    ['dynamic-import', 1],
    ['namespace-reexport', 2],
    ['commonjs-export', 3],
  ]);
});

test('a syntax error is a ModuleSyntaxError carrying acorn\'s line', () => {
  try {
    moduleFacts('export const ok = 1;\n\nexport const = ;');
    assert.unreachable('should not parse');
  } catch (error) {
    assert.instance(error, ModuleSyntaxError);
    assert.is((error as ModuleSyntaxError).line, 3);
    assert.match((error as Error).message, /\(3:/);
  }
});

test('sources are read as ES modules of the latest edition: top-level await, import attributes, hashbang', () => {
  const facts = moduleFacts(lines('#!/usr/bin/env node', "import data from './data.json' with { type: 'json' };", 'await Promise.resolve();', 'export const a = data;'));
  assert.equal(facts.localExports.map(({ exported, line }) => [exported, line]), [['a', 4]]);
});

test('locallyDefinedExportNames: own names only, undefined when acorn cannot read the source', () => {
  assert.equal(
    [...locallyDefinedExportNames(lines('export const a = 1;', "export { b } from './b.js';", "import { c } from './c.js';", 'export { c };', 'const d = 1;', 'export { d as e };', 'export default a;'))!],
    ['a', 'e', 'default'],
  );
  assert.is(locallyDefinedExportNames('export const x: number = 1;'), undefined, 'TypeScript does not parse');
  assert.equal([...locallyDefinedExportNames("export * from './x.js';")!], []);
});

test.run();
