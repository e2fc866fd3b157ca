import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { discoverPackagedWorkflows, formatDiscoveryWarning, type PackageDiscovery } from '../../../adapters/workflowSources/discoverPackages.js';
import { createFixtureProject, type FixturePackage, type FixtureProject } from '../../support/fixturePackages.js';

const EXPOSED = { flowgate: { workflows: { expose: true } } };
const manifest = (name: string, extra: Record<string, unknown> = {}) => ({ name, version: '1.0.0', type: 'module', ...extra });
const workflowSource = (exportLine: string, name: string) =>
  `import { workflow } from 'flowgate';\nimport { z } from 'zod';\n${exportLine} workflow({ name: '${name}', description: '${name} workflow', inputSchema: z.any(), outputSchema: z.any(), fn: async () => '${name}' });\n`;

const PACKAGES: FixturePackage[] = [
  {
    // Nested chain: export * → export { x as y } / export { default as z } → declarations.
    name: 'plain-flows',
    manifest: manifest('plain-flows', { main: 'index.js', ...EXPOSED }),
    files: {
      'index.js': "export * from './a/index.js';\n",
      'a/index.js': "export { one as renamedOne } from './one.js';\nexport { default as two } from './two.js';\n",
      'a/one.js': workflowSource('export const one =', 'plain.one'),
      'a/two.js': workflowSource('export default', 'plain.two'),
    },
  },
  {
    name: '@scope/flows',
    manifest: manifest('@scope/flows', { type: 'commonjs', exports: { '.': { require: './cjs/index.cjs', import: './esm/index.mjs' } }, ...EXPOSED }),
    files: {
      'esm/index.mjs': workflowSource('export const scoped =', 'scoped.flow'),
      'cjs/index.cjs': 'module.exports = {};\n',
    },
  },
  {
    name: 'hidden',
    manifest: manifest('hidden', { main: 'index.js' }),
    files: { 'index.js': workflowSource('export const hidden =', 'hidden.flow') },
  },
  {
    name: 'cycle-flows',
    manifest: manifest('cycle-flows', { exports: './index.js', ...EXPOSED }),
    files: {
      'index.js': "export * from './a.js';\n",
      'a.js': `export * from './b.js';\n${workflowSource('export const wa =', 'cycle.a')}`,
      'b.js': `export * from './a.js';\n${workflowSource('export const wb =', 'cycle.b')}`,
    },
  },
  {
    name: 'odd-flows',
    manifest: manifest('odd-flows', { exports: { '.': './index.js' }, ...EXPOSED }),
    files: {
      'index.js': [
        "export { good } from './good.js';",
        "export * as ns from './good.js';",
        "import * as all from './good.js';",
        'export { all };',
        "const lazy = () => import('./good.js');",
        'const pick = (name) => import(`./flows/${name}.js`);',
        "export { other } from 'other-package';",
        "export * from '../plain-flows/index.js';",
        "export * from './missing.js';",
        "export { nope } from './good.js';",
        "export * from './broken.js';",
        "export { bundle } from './bundle.js';",
        "export * from './legacy.js';",
      ].join('\n'),
      'good.js': workflowSource('export const good =', 'odd.good'),
      'broken.js': 'export const fine = 1;\nexport const = ;\n',
      'bundle.js': `import { good } from './good.js';\nimport { workflow } from 'flowgate';\nexport const bundle = { good };\n`,
      'legacy.js': 'exports.flow = 1;\n',
    },
  },
  { name: 'cjs-flows', manifest: manifest('cjs-flows', { type: 'commonjs', main: 'index.js', ...EXPOSED }), files: { 'index.js': 'module.exports = {};\n' } },
  { name: 'bad-flag', manifest: manifest('bad-flag', { flowgate: { workflows: { expose: 'yes' } } }), files: { 'index.js': '' } },
  { name: 'no-entry', manifest: manifest('no-entry', { exports: { './sub': './sub.js' }, ...EXPOSED }), files: { 'sub.js': '' } },
  { name: 'gone-entry', manifest: manifest('gone-entry', { main: 'dist/index.js', ...EXPOSED }), files: {} },
];

interface Context {
  project: FixtureProject;
  discovery: PackageDiscovery;
  lines: string[];
}
const test = suite<Context>('package discovery', {} as Context);

test.before(async (context) => {
  context.project = await createFixtureProject(PACKAGES);
  const { writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  await (await import('node:fs/promises')).mkdir(join(context.project.dir, 'node_modules', 'broken-json'));
  await writeFile(join(context.project.dir, 'node_modules', 'broken-json', 'package.json'), '{ "name": ');
  context.discovery = await discoverPackagedWorkflows(context.project.dir);
  context.lines = context.discovery.warnings.map((warning) => formatDiscoveryWarning(warning));
});
test.after(async (context) => {
  await context.project?.remove();
});

const linesOf = (lines: string[], pkg: string) => lines.filter((line) => line.startsWith(`package ${pkg}:`));

test('exposed packages (scoped ones too) contribute their workflows under their names; a package that is not exposed contributes nothing', ({ discovery }) => {
  assert.equal(
    discovery.workflows.map((found) => found.definition.name),
    ['scoped.flow', 'cycle.a', 'cycle.b', 'odd.good', 'plain.one', 'plain.two'],
  );
  assert.equal(
    discovery.exposedPackages.map(({ name }) => name),
    ['@scope/flows', 'cjs-flows', 'cycle-flows', 'gone-entry', 'no-entry', 'odd-flows', 'plain-flows'],
  );
  assert.not.ok(discovery.workflows.some((found) => found.definition.name === 'hidden.flow'));
});

test('a nested chain of re-exports leads to the declaring module and its own export name', ({ discovery }) => {
  const one = discovery.workflows.find((found) => found.definition.name === 'plain.one')!;
  assert.match(one.modulePath, /node_modules\/plain-flows\/a\/one\.js$/);
  assert.is(one.exportName, 'one');
  assert.equal(one.origin.kind === 'package' && one.origin.packageName, 'plain-flows');
  const two = discovery.workflows.find((found) => found.definition.name === 'plain.two')!;
  assert.is(two.exportName, 'default');
  const scoped = discovery.workflows.find((found) => found.definition.name === 'scoped.flow')!;
  assert.match(scoped.modulePath, /@scope\/flows\/esm\/index\.mjs$/, 'the import condition, not require');
});

test('cycles in re-exports end, and every workflow in the cycle is found', ({ discovery, lines }) => {
  const names = discovery.workflows.filter((found) => found.origin.kind === 'package' && found.origin.packageName === 'cycle-flows').map((found) => found.definition.name);
  assert.equal(names, ['cycle.a', 'cycle.b']);
  assert.equal(linesOf(lines, 'cycle-flows'), []);
});

test('each unsupported form, missing file, syntax error and bad name is one warning line naming package, file and line', ({ lines }) => {
  const odd = linesOf(lines, 'odd-flows');
  const expect = (fragment: RegExp) => assert.ok(odd.some((line) => fragment.test(line)), `a line matching ${fragment} in:\n${odd.join('\n')}`);
  expect(/^package odd-flows: node_modules\/odd-flows\/index\.js:2: namespace re-export "export \* as ns from '\.\/good\.js'"/);
  expect(/index\.js:4: namespace import "all"/);
  expect(/index\.js:5: dynamic import\('\.\/good\.js'\) is not followed/);
  expect(/index\.js:6: dynamic import\(\) with a computed path/);
  expect(/index\.js:7: re-export from "other-package" is not followed/);
  expect(/index\.js:8: re-export from "\.\.\/plain-flows\/index\.js" leaves the package/);
  expect(/index\.js:9: re-export from "\.\/missing\.js": file not found/);
  expect(/index\.js:10: "nope" is not exported by \.\/good\.js/);
  expect(/broken\.js:2: syntax error/);
  expect(/bundle\.js:3: export "bundle" is assembled at run time and holds workflows "odd\.good"/);
  expect(/legacy\.js:1: CommonJS export "exports\.flow = …"/);
  assert.is(odd.length, 11, odd.join('\n'));
  for (const line of odd) assert.not.ok(line.includes('\n'), 'one line each');
});

test('package-level problems: CommonJS entry, malformed flag, no ESM entry, missing entry file, broken package.json', ({ lines }) => {
  assert.match(linesOf(lines, 'cjs-flows').join('\n'), /^package cjs-flows: node_modules\/cjs-flows\/index\.js: the entry is CommonJS/);
  assert.match(linesOf(lines, 'bad-flag').join('\n'), /"flowgate\.workflows\.expose" must be the boolean true/);
  assert.match(linesOf(lines, 'no-entry').join('\n'), /package\.json: no ESM entry: its "exports" has no ESM target for "\."/);
  assert.match(linesOf(lines, 'gone-entry').join('\n'), /its entry dist\/index\.js \(from "main"\) does not exist/);
  assert.match(linesOf(lines, 'broken-json').join('\n'), /package\.json is not valid JSON/);
  assert.equal(linesOf(lines, 'hidden'), [], 'a package that is not exposed is not even read');
  assert.equal(linesOf(lines, 'plain-flows'), []);
});

test('a project without node_modules discovers nothing', async () => {
  const { tmpdir } = await import('node:os');
  const discovery = await discoverPackagedWorkflows(tmpdir() + '/flowgate-no-such-project');
  assert.equal(discovery, { workflows: [], warnings: [], exposedPackages: [] });
});

test.run();
