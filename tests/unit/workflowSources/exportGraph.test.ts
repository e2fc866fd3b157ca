import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join, resolve } from 'node:path';
import { resolvePackageExports, resolveSpecifier, type PackageExports } from '../../../adapters/workflowSources/exportGraph.js';

// The graph walker only reads sources through its callback, so a package can live in memory here.
const PKG = { name: '@acme/flows', dir: resolve('/virtual/node_modules/@acme/flows') };
const at = (path: string) => join(PKG.dir, path);

async function walk(files: Record<string, string>, entry = 'index.js'): Promise<PackageExports & { reads: Map<string, number> }> {
  const reads = new Map<string, number>();
  const readSource = async (file: string) => {
    reads.set(file, (reads.get(file) ?? 0) + 1);
    const key = Object.keys(files).find((path) => at(path) === file);
    return key === undefined ? undefined : files[key];
  };
  return { ...(await resolvePackageExports(at(entry), PKG, readSource)), reads };
}

const table = ({ bindings }: PackageExports) =>
  Object.fromEntries([...bindings].map(([name, binding]) => [name, `${binding.file.slice(PKG.dir.length + 1)}#${binding.localName}@${binding.line}`]));
const warningsOf = ({ warnings }: PackageExports) => warnings.map((w) => `${w.file.slice(PKG.dir.length + 1)}:${w.line ?? '-'}: ${w.message}`);

test('a nested chain (export * → export { x as y } → export { default as z }) ends at the declaring modules', async () => {
  const result = await walk({
    'index.js': "export * from './flows/index.js';\n",
    'flows/index.js': "export { one as renamed } from './one.js';\nexport { default as two } from './deep/two.js';\n",
    'flows/one.js': '// one\nexport const one = {};\n',
    'flows/deep/two.js': 'export default {};\n',
  });
  assert.equal(table(result), { renamed: 'flows/one.js#one@2', two: 'flows/deep/two.js#default@1' });
  assert.equal(result.warnings, []);
});

test("a binding names the declaring module's own export name, which is what an import reads", async () => {
  const result = await walk({ 'index.js': "export { shown as entryName } from './a.js';\n", 'a.js': 'const hidden = {};\nexport { hidden as shown };\n' });
  assert.equal(table(result), { entryName: 'a.js#shown@2' });
});

test('imports exported again are followed like export-from', async () => {
  const result = await walk({
    'index.js': "import { a } from './a.js';\nimport d from './d.js';\nexport { a, d as e };\n",
    'a.js': 'export const a = 1;\n',
    'd.js': 'export default 2;\n',
  });
  assert.equal(table(result), { a: 'a.js#a@1', e: 'd.js#default@1' });
});

test('export * carries no default and never overrides an explicit export, wherever that export is written', async () => {
  const result = await walk({
    'index.js': "export * from './star.js';\nexport const shared = 'mine';\nexport { other } from './other.js';\n",
    'star.js': 'export const shared = 1, other = 2, onlyHere = 3;\nexport default 4;\n',
    'other.js': 'export const other = 5;\n',
  });
  assert.equal(table(result), { shared: 'index.js#shared@2', other: 'other.js#other@1', onlyHere: 'star.js#onlyHere@1' });
});

test('two export * offering different bindings for one name make it ambiguous: a warning, and no export', async () => {
  const result = await walk({
    'index.js': "export * from './a.js';\nexport * from './b.js';\nexport * from './c.js';\n",
    'a.js': 'export const clash = 1, fromA = 2;\n',
    'b.js': 'export const clash = 3;\n',
    'c.js': "export { fromA } from './a.js';\n",
  });
  assert.equal(table(result), { fromA: 'a.js#fromA@1' }, 'the same binding reached twice is no ambiguity');
  assert.equal(warningsOf(result), ['index.js:2: "clash" is exported by two "export *" (a.js and b.js), so it is ambiguous and not exported; export it by name']);
});

test('cycles of export * end, and every name in the cycle is found', async () => {
  const result = await walk({
    'index.js': "export * from './a.js';\nexport * from './index.js';\n",
    'a.js': "export * from './b.js';\nexport const wa = 1;\n",
    'b.js': "export * from './a.js';\nexport * from './index.js';\nexport const wb = 2;\n",
  });
  assert.equal(table(result), { wa: 'a.js#wa@2', wb: 'b.js#wb@3' });
  assert.equal(result.warnings, []);
});

test('a named re-export that leads back into the cycle that reached it is still found', async () => {
  const result = await walk({
    'index.js': "export * from './a.js';\n",
    'a.js': "export const x = 1;\nexport * from './b.js';\n",
    'b.js': "export { x as z } from './a.js';\nexport { y } from './c.js';\n",
    'c.js': "export * from './b.js';\nexport const y = 2;\n",
  });
  assert.equal(table(result), { x: 'a.js#x@1', z: 'a.js#x@1', y: 'c.js#y@2' });
  assert.equal(result.warnings, []);
});

test('a name re-exported in a circle and never declared is a warning, not a hang', async () => {
  const result = await walk({ 'index.js': "export { loop } from './a.js';\n", 'a.js': "export { loop } from './index.js';\n" });
  assert.equal(table(result), {});
  assert.equal(warningsOf(result), [
    'index.js:1: "loop" from ./a.js is re-exported in a circle and never declared',
    'a.js:1: "loop" from ./index.js is re-exported in a circle and never declared',
  ]);
});

test('a missing file is a warning at the re-export; no extension is guessed and no directory index is looked up', async () => {
  const result = await walk({
    'index.js': "export * from './missing.js';\nexport { a } from './a';\nexport * from './dir';\nexport const ok = 1;\n",
    'a.js': 'export const a = 1;\n',
    'dir/index.js': 'export const b = 2;\n',
  });
  assert.equal(table(result), { ok: 'index.js#ok@4' });
  const lines = warningsOf(result);
  assert.is(lines.length, 3, lines.join('\n'));
  assert.match(lines[0]!, /^index\.js:1: re-export from "\.\/missing\.js": file not found \(missing\.js\); ESM specifiers name the full file/);
  assert.match(lines[1]!, /^index\.js:2: re-export from "\.\/a": file not found \(a\)/);
  assert.match(lines[2]!, /^index\.js:3: re-export from "\.\/dir": file not found \(dir\)/);
});

test('specifiers resolve as URLs, as Node does: percent-decoding, query and hash dropped', async () => {
  const result = await walk({ 'index.js': "export { a } from './my%20flows.js?v=1#x';\n", 'my flows.js': 'export const a = 1;\n' });
  assert.equal(table(result), { a: 'my flows.js#a@1' });
  assert.is(resolveSpecifier(at('index.js'), 'other-pkg'), undefined);
  assert.is(resolveSpecifier(at('index.js'), 'node:fs'), undefined);
  assert.is(resolveSpecifier(at('x/index.js'), '../y.js'), at('y.js'));
  assert.is(resolveSpecifier(at('index.js'), './a%2fb.js'), undefined, 'an encoded separator is refused, as Node refuses it');
});

test('a re-export leaving the package directory is refused, relative or absolute', async () => {
  const result = await walk({
    'index.js': "export * from '../other/index.js';\nexport { x } from '" + resolve('/elsewhere/x.js') + "';\nexport { y } from './sub/../y.js';\n",
    'y.js': 'export const y = 1;\n',
  });
  assert.equal(table(result), { y: 'y.js#y@1' }, 'climbing back into the package is fine');
  assert.equal(warningsOf(result), [
    'index.js:1: re-export from "../other/index.js" leaves the package directory and is not followed',
    `index.js:2: re-export from "${resolve('/elsewhere/x.js')}" leaves the package directory and is not followed`,
  ]);
  assert.not.ok(result.reads.has(resolve(PKG.dir, '../other/index.js')), 'a refused file is not even read');
});

test('bare and URL specifiers are warnings naming what was not followed', async () => {
  const result = await walk({ 'index.js': "export { x } from 'other-pkg';\nexport * from '@scope/pkg/sub.js';\nexport { readFile } from 'node:fs/promises';\n" });
  assert.equal(warningsOf(result), [
    'index.js:1: re-export from "other-pkg" is not followed: it names another package (expose that package itself, or export the workflow from a file of this one)',
    'index.js:2: re-export from "@scope/pkg/sub.js" is not followed: it names another package (expose that package itself, or export the workflow from a file of this one)',
    'index.js:3: re-export from "node:fs/promises" is not followed: it is not a file of this package',
  ]);
});

test("a syntax error is a warning at acorn's line; the rest of the package is still walked", async () => {
  const result = await walk({
    'index.js': "export * from './broken.js';\nexport { good } from './good.js';\n",
    'broken.js': 'export const fine = 1;\nexport const = ;\n',
    'good.js': 'export const good = 1;\n',
  });
  assert.equal(table(result), { good: 'good.js#good@1' });
  const lines = warningsOf(result);
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /^broken\.js:2: syntax error, the module is skipped: /);
});

test('a broken entry gives its own warning and no bindings', async () => {
  const result = await walk({ 'index.js': 'export const = 1;' });
  assert.is(result.bindings.size, 0);
  assert.equal(result.warnings.map(({ file, line }) => [file, line]), [[at('index.js'), 1]]);
});

test('a re-export of a name the target does not export is a warning, also where another export hides it', async () => {
  const result = await walk({
    'index.js': "export { nope } from './a.js';\nexport { default as d } from './a.js';\nexport * from './b.js';\nexport const hidden = 1;\n",
    'a.js': 'export const yes = 1;\n',
    'b.js': "export { hidden } from './a.js';\n",
  });
  assert.equal(table(result), { hidden: 'index.js#hidden@4' });
  assert.equal(warningsOf(result), [
    'index.js:1: "nope" is not exported by ./a.js',
    'index.js:2: "default" is not exported by ./a.js',
    'b.js:1: "hidden" is not exported by ./a.js',
  ]);
});

test('a name whose module failed to load is not reported a second time as missing', async () => {
  const result = await walk({ 'index.js': "export { a } from './a.js';\n", 'a.js': "export { a } from './gone.js';\n" });
  assert.equal(warningsOf(result).length, 1, warningsOf(result).join('\n'));
  assert.match(warningsOf(result)[0]!, /^a\.js:1: re-export from "\.\/gone\.js": file not found/);
});

test('every unsupported form is one warning at its file and line; one finding reached twice is one warning', async () => {
  const result = await walk({
    'index.js': "export * from './odd.js';\nexport { lazy } from './odd.js';\n",
    'odd.js': [
      "export * as ns from './x.js';",
      "import * as all from './x.js';",
      'export { all };',
      "export const lazy = () => import('./x.js');",
      "const cjs = require('./x.cjs');",
      'module.exports.y = 1;',
    ].join('\n'),
    'x.js': 'export const x = 1;\n',
  });
  assert.equal(
    result.warnings.map(({ file, line }) => `${file.slice(PKG.dir.length + 1)}:${line}`),
    ['odd.js:1', 'odd.js:3', 'odd.js:4', 'odd.js:5', 'odd.js:6'],
  );
  assert.ok(result.warnings.every((warning) => warning.packageName === '@acme/flows'));
});

test('each file is read once per walk, however often it is reached', async () => {
  const result = await walk({
    'index.js': "export * from './a.js';\nexport * from './b.js';\nexport { c } from './c.js';\n",
    'a.js': "export * from './c.js';\nexport const a = 1;\n",
    'b.js': "export * from './c.js';\nexport { a as b } from './a.js';\n",
    'c.js': 'export const c = 1;\n',
  });
  assert.equal(table(result), { c: 'c.js#c@1', a: 'a.js#a@2', b: 'a.js#a@2' });
  assert.equal([...result.reads.values()], [1, 1, 1, 1]);
});

test('bindings come in the order the entry exports them: own, named re-exports, then export *', async () => {
  const result = await walk({
    'index.js': "export * from './s.js';\nexport { r } from './r.js';\nexport const own = 1;\n",
    's.js': 'export const s2 = 1, s1 = 2;\n',
    'r.js': 'export const r = 1;\n',
  });
  assert.equal([...result.bindings.keys()], ['own', 'r', 's2', 's1']);
});

test.run();
