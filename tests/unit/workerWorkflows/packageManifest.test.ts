import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { esmEntry, isCommonJsFile, isExposed } from '../../../adapters/workflowSources/packageManifest.js';

test('only "flowgate": { "workflows": { "expose": true } } exposes a package', () => {
  assert.is(isExposed({ flowgate: { workflows: { expose: true } } }), true);
  assert.is(isExposed({}), false);
  assert.is(isExposed({ flowgate: { workflows: { expose: false } } }), false);
  assert.is(isExposed({ flowgate: {} }), false);
  assert.is(isExposed({ flowgate: { workflows: { expose: 'true' } } }), 'malformed');
  assert.is(isExposed({ flowgate: { workflows: true } }), 'malformed');
  assert.is(isExposed({ flowgate: true }), 'malformed');
  assert.is(isExposed({ workflows: { expose: true } }), false, 'the flag lives under the flowgate key');
});

test('the ESM entry: exports "." with import/node/default conditions, nested, arrays, sugar; else module, main, index.js', () => {
  assert.equal(esmEntry({ exports: './dist/a.js' }), { path: './dist/a.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': './b.js', './extra': './x.js' } }), { path: './b.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': { require: './c.cjs', import: './c.mjs' } } }), { path: './c.mjs', from: 'exports' });
  assert.equal(esmEntry({ exports: { types: './d.d.ts', default: './d.js' } }), { path: './d.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': { import: { types: './e.d.ts', default: './e.js' } } } }), { path: './e.js', from: 'exports' });
  assert.equal(esmEntry({ exports: { '.': [{ worker: './w.js' }, './f.js'] } }), { path: './f.js', from: 'exports' });
  assert.equal(esmEntry({ module: './esm.js', main: './cjs.js' }), { path: './esm.js', from: 'module' });
  assert.equal(esmEntry({ main: 'lib/main.js' }), { path: 'lib/main.js', from: 'main' });
  assert.equal(esmEntry({}), { path: 'index.js', from: 'main' });
  assert.ok('problem' in esmEntry({ exports: { '.': { require: './only.cjs' } }, main: './only.cjs' }), 'no fallback to main');
  assert.ok('problem' in esmEntry({ exports: { './sub': './sub.js' } }));
  assert.ok('problem' in esmEntry({ exports: { '.': 'x.js' } }), 'targets start with ./');
});

test('module system by Node\'s rules, the module field counting as ESM', () => {
  assert.is(isCommonJsFile('/p/a.mjs', undefined), false);
  assert.is(isCommonJsFile('/p/a.cjs', 'module'), true);
  assert.is(isCommonJsFile('/p/a.js', 'module'), false);
  assert.is(isCommonJsFile('/p/a.js', 'commonjs'), true);
  assert.is(isCommonJsFile('/p/a.js', undefined), true);
  assert.is(isCommonJsFile('/p/a.js', undefined, 'module'), false);
});

test.run();
