import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { esmEntry, isCommonJsFile, isExposed } from '../../../adapters/workflowSources/packageManifest.js';

const problemOf = (manifest: unknown): string => {
  const entry = esmEntry(manifest);
  assert.ok('problem' in entry, `expected a problem, got ${JSON.stringify(entry)}`);
  return (entry as { problem: string }).problem;
};

test('isExposed: only the boolean true under flowgate.workflows.expose exposes', () => {
  assert.is(isExposed({ flowgate: { workflows: { expose: true } } }), true);
  assert.is(isExposed({ flowgate: { workflows: { expose: false } } }), false);
  assert.is(isExposed({ name: 'x' }), false);
  assert.is(isExposed({}), false);
  assert.is(isExposed({ flowgate: {} }), false, 'no workflows key: nothing to expose');
  assert.is(isExposed({ flowgate: { workflows: {} } }), false, 'no expose key: not exposed');
  assert.is(isExposed({ workflows: { expose: true } }), false, 'the flag lives under the flowgate key');
  assert.is(isExposed(undefined), false);
});

test('isExposed: a present flag of another kind, or a non-object on the way to it, is malformed', () => {
  for (const expose of ['true', 1, null, [], {}]) {
    assert.is(isExposed({ flowgate: { workflows: { expose } } }), 'malformed', JSON.stringify(expose));
  }
  assert.is(isExposed({ flowgate: { workflows: true } }), 'malformed');
  assert.is(isExposed({ flowgate: { workflows: null } }), 'malformed');
  assert.is(isExposed({ flowgate: true }), 'malformed');
  assert.is(isExposed({ flowgate: 'workflows' }), 'malformed');
});

test('esmEntry: exports as a string, a subpath map, or conditions standing for "."', () => {
  assert.equal(esmEntry({ exports: './dist/a.js', main: './cjs.js' }), { path: './dist/a.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': './b.js', './extra': './x.js' } }), { path: './b.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { types: './d.d.ts', default: './d.js' } }), { path: './d.js', from: 'exports' });
});

test('esmEntry: import, node and default conditions, walked in object order as Node does, nested ones too', () => {
  assert.equal(esmEntry({ exports: { '.': { require: './c.cjs', import: './c.mjs' } } }), { path: './c.mjs', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': { default: './first.js', import: './second.js' } } }), { path: './first.js', from: 'exports' }, 'key order, not a ranking');
  assert.equal(esmEntry({ exports: { '.': { node: './node.js', import: './import.js' } } }), { path: './node.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': { browser: './browser.js', worker: './w.js', default: './d.js' } } }), { path: './d.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': { import: { types: './e.d.ts', default: './e.js' } } } }), { path: './e.js', from: 'exports' });
  assert.equal(
    esmEntry({ exports: { '.': { node: { require: './n.cjs' }, import: './i.js' } } }),
    { path: './i.js', from: 'exports' },
    'a matching condition whose nested conditions match nothing lets the next key try',
  );
});

test('esmEntry: fallback arrays take the first valid target', () => {
  assert.equal(esmEntry({ exports: { '.': [{ worker: './w.js' }, './f.js'] } }), { path: './f.js', from: 'exports' });
  assert.equal(esmEntry({ exports: ['not-relative.js', './g.js'] }), { path: './g.js', from: 'exports' });
});

test('esmEntry: exports without a usable ESM "." is a problem, never a fall back to main', () => {
  assert.match(problemOf({ exports: { '.': { require: './only.cjs' } }, main: './only.cjs' }), /no ESM target for "\."/);
  assert.match(problemOf({ exports: { './sub': './sub.js' }, main: './index.js' }), /no ESM target/);
  assert.match(problemOf({ exports: { '.': { import: null, default: './d.js' } } }), /excludes "\."/);
  assert.match(problemOf({ exports: { '.': 'x.js' } }), /must start with "\.\/"/);
  assert.match(problemOf({ exports: { '.': './../outside.js' } }), /may not contain/);
  assert.match(problemOf({ exports: { '.': './a.js', import: './b.js' } }), /mixes subpaths/);
});

test('esmEntry: without exports, the module field, then main, then index.js', () => {
  assert.equal(esmEntry({ module: './esm.js', main: './cjs.js' }), { path: './esm.js', from: 'module' });
  assert.equal(esmEntry({ main: 'lib/main.js' }), { path: 'lib/main.js', from: 'main' });
  assert.equal(esmEntry({ exports: null, main: 'lib/main.js' }), { path: 'lib/main.js', from: 'main' }, 'null exports is no exports');
  assert.equal(esmEntry({ main: '' }), { path: 'index.js', from: 'main' });
  assert.equal(esmEntry({}), { path: 'index.js', from: 'main' });
});

test("isCommonJsFile: Node's rules by extension and type, a file from the module field being ESM", () => {
  assert.is(isCommonJsFile('/p/a.mjs', 'commonjs'), false);
  assert.is(isCommonJsFile('/p/a.mjs', undefined), false);
  assert.is(isCommonJsFile('/p/a.cjs', 'module'), true);
  assert.is(isCommonJsFile('/p/a.js', 'module'), false);
  assert.is(isCommonJsFile('/p/a.js', 'commonjs'), true);
  assert.is(isCommonJsFile('/p/a.js', undefined), true, 'no type means commonjs');
  assert.is(isCommonJsFile('/p/a.js', undefined, 'module'), false);
  assert.is(isCommonJsFile('/p/a.cjs', undefined, 'module'), true, 'the extension still wins');
  assert.is(isCommonJsFile('/p/a.js', undefined, 'main'), true);
});

test.run();
