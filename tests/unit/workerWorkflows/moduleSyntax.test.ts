import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { locallyDefinedExportNames, moduleFacts, ModuleSyntaxError } from '../../../adapters/workflowSources/moduleSyntax.js';

test('local exports: declarations (with destructuring), default, and export lists of local bindings', () => {
  const facts = moduleFacts(
    [
      'export const a = 1, { b, c: [d] } = x;',
      'export function f() {}',
      'export class K {}',
      'const hidden = 2;',
      'export { hidden as shown };',
      'export default 3;',
    ].join('\n'),
  );
  assert.equal(
    facts.localExports.map(({ exported, localName, line }) => [exported, localName, line]),
    [
      ['a', 'a', 1],
      ['b', 'b', 1],
      ['d', 'd', 1],
      ['f', 'f', 2],
      ['K', 'K', 3],
      ['shown', 'hidden', 5],
      ['default', 'default', 6],
    ],
  );
  assert.equal(facts.reexports, []);
  assert.equal(facts.unsupported, []);
});

test('re-exports: named, renamed, default, star, and imports exported again', () => {
  const facts = moduleFacts(
    [
      "export { x } from './a.js';",
      "export { y as z, default as w } from './b.js';",
      "export * from './c.js';",
      "import { p } from './d.js';",
      "import q from './e.js';",
      'export { p, q as r };',
    ].join('\n'),
  );
  assert.equal(facts.reexports, [
    { kind: 'named', exported: 'x', imported: 'x', specifier: './a.js', line: 1 },
    { kind: 'named', exported: 'z', imported: 'y', specifier: './b.js', line: 2 },
    { kind: 'named', exported: 'w', imported: 'default', specifier: './b.js', line: 2 },
    { kind: 'star', specifier: './c.js', line: 3 },
    { kind: 'named', exported: 'p', imported: 'p', specifier: './d.js', line: 6 },
    { kind: 'named', exported: 'r', imported: 'default', specifier: './e.js', line: 6 },
  ]);
  assert.equal(facts.localExports, []);
});

test('every unsupported form is found with its line', () => {
  const facts = moduleFacts(
    [
      "export * as ns from './ns.js';",
      "import * as all from './all.js';",
      'export { all };',
      "const lazy = () => import('./lazy.js');",
      'const computed = (name) => import(`./flows/${name}.js`);',
      "const cjs = require('./cjs.js');",
      'module.exports = {};',
      'module.exports.thing = 1;',
      'exports.other = 2;',
      "Object.defineProperty(exports, 'x', { value: 1 });",
      'const dyn = (n) => require(n);',
    ].join('\n'),
  );
  assert.equal(
    facts.unsupported.map(({ kind, line }) => [kind, line]),
    [
      ['namespace-reexport', 1],
      ['namespace-import-exported', 3],
      ['dynamic-import', 4],
      ['dynamic-import', 5],
      ['require', 6],
      ['commonjs-export', 7],
      ['commonjs-export', 8],
      ['commonjs-export', 9],
      ['commonjs-export', 10],
      ['require', 11],
    ],
  );
  assert.match(facts.unsupported[0]!.message, /export \* as ns from '\.\/ns\.js'/);
  assert.match(facts.unsupported[3]!.message, /computed path/);
  assert.match(facts.unsupported[2]!.message, /'\.\/lazy\.js'/);
});

test('a local variable named require or exports is not CommonJS', () => {
  const facts = moduleFacts(['const exports = {};', 'exports.x = 1;', 'function load(require) { return require("x"); }'].join('\n'));
  assert.equal(facts.unsupported, []);
});

test('a syntax error carries its line; locallyDefinedExportNames gives up on sources acorn cannot read', () => {
  try {
    moduleFacts('export const ok = 1;\nexport const = ;');
    assert.unreachable('should not parse');
  } catch (error) {
    assert.instance(error, ModuleSyntaxError);
    assert.is((error as ModuleSyntaxError).line, 2);
  }
  assert.is(locallyDefinedExportNames('export const x: number = 1;'), undefined);
  assert.equal([...locallyDefinedExportNames("export const a = 1; export { b } from './b.js';")!], ['a']);
});

test.run();
