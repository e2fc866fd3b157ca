import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discoverPackagedWorkflows, formatDiscoveryWarning, type PackageDiscovery } from '../../../adapters/workflowSources/discoverPackages.js';
import { createFixtureProject, type FixturePackage, type FixtureProject } from '../../support/fixturePackages.js';

const EXPOSED = { flowgate: { workflows: { expose: true } } };
const esm = (name: string, extra: Record<string, unknown> = {}) => ({ name, version: '1.0.0', type: 'module', ...extra });

/** A workflow module whose definition sits on line 3, behind `head` (`export const x =`, `export default`, `const x =`). */
const workflowSource = (head: string, name: string) => `import { workflow } from 'flowgate';
import { z } from 'zod';
${head} workflow({ name: '${name}', description: 'Upper-cases text', inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ text: z.string() }), fn: async ({ text }) => ({ text: text.toUpperCase() }) });
`;

const PACKAGES: FixturePackage[] = [
  {
    // Scoped; an import condition beside a require one; a chain export * → export { x as y } → export { default as z }.
    name: '@acme/flows',
    manifest: esm('@acme/flows', { exports: { '.': { require: './dist/index.cjs', import: './dist/index.js' } }, ...EXPOSED }),
    files: {
      'dist/index.js': `${Array.from({ length: 11 }, (_, i) => `// line ${i + 1}`).join('\n')}\nexport * as ns from './x.js';\nexport * from './chain/index.js';\n`,
      'dist/index.cjs': "module.exports = require('./x.cjs');\n",
      'dist/x.js': workflowSource('export const x =', 'acme.x'),
      'dist/chain/index.js': "export { outer as y } from './middle.js';\nexport { inner as renamed } from './inner.js';\n",
      'dist/chain/middle.js': "export { default as outer } from './leaf.js';\n",
      'dist/chain/leaf.js': workflowSource('export default', 'acme.leaf'),
      'dist/chain/inner.js': `${workflowSource('const w =', 'acme.inner')}export { w as inner };\n`,
    },
  },
  {
    name: 'plain-flows',
    manifest: esm('plain-flows', { main: 'index.js', ...EXPOSED }),
    files: { 'index.js': workflowSource('export const shout =', 'plain.shout') },
  },
  {
    // Not exposed: however odd its contents, it is not read, not warned about, not served.
    name: 'hidden-flows',
    manifest: esm('hidden-flows', { main: 'index.js' }),
    files: { 'index.js': `export * as ns from './x.js';\nexport * from './broken.js';\n${workflowSource('export const hidden =', 'hidden.flow')}`, 'broken.js': 'export const = ;\n' },
  },
  {
    name: 'cycle-flows',
    manifest: esm('cycle-flows', { exports: './index.js', ...EXPOSED }),
    files: {
      'index.js': "export * from './a.js';\n",
      'a.js': `export * from './b.js';\n${workflowSource('export const wa =', 'cycle.a')}`,
      'b.js': `export * from './a.js';\nexport { wc } from './c.js';\n${workflowSource('export const wb =', 'cycle.b')}`,
      'c.js': `export * from './index.js';\nexport { wa as again } from './a.js';\n${workflowSource('export const wc =', 'cycle.c')}`,
    },
  },
  {
    name: 'odd-flows',
    manifest: esm('odd-flows', { exports: { '.': './index.js' }, ...EXPOSED }),
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
        "export { bundle, default as list } from './bundle.js';",
        "export * from './legacy.js';",
        "export { fine } from './boom.js';",
        "export { dupA } from './dup-a.js';",
        "export { dupB } from './dup-b.js';",
        "const cjs = require('./legacy.js');",
        "export { good as goodAgain } from './good.js';",
        "export { sameBundle, bundle as bundleAgain } from './bundle.js';",
      ].join('\n'),
      'good.js': workflowSource('export const good =', 'odd.good'),
      'broken.js': 'export const fine = 1;\nexport const = ;\n',
      'bundle.js': `import { good } from './good.js';\nimport { dupA } from './dup-a.js';\nimport { stray } from './stray.js';\nexport const bundle = { good, dupA, stray };\nexport { bundle as sameBundle };\nexport default [stray];\n`,
      'stray.js': workflowSource('export const stray =', 'odd.stray'),
      'legacy.js': "exports.flow = 1;\nmodule.exports = {};\nObject.defineProperty(exports, 'x', { value: 1 });\n",
      'boom.js': `${workflowSource('export const fine =', 'odd.fine')}throw new Error('boom at import');\n`,
      'dup-a.js': workflowSource('export const dupA =', 'odd.dup'),
      'dup-b.js': workflowSource('export const dupB =', 'odd.dup'),
    },
  },
  {
    // The whole entry is CommonJS: one warning for the package, nothing about the forms inside it.
    name: 'cjs-flows',
    manifest: esm('cjs-flows', { type: 'commonjs', main: 'index.js', ...EXPOSED }),
    files: { 'index.js': "module.exports = { a: require('./a.js') };\nexports.b = 1;\n" },
  },
  {
    // The module field names an ESM build even in a CommonJS package (its folder says so to Node).
    name: 'module-field',
    manifest: esm('module-field', { type: 'commonjs', main: './cjs/index.js', module: './esm/index.js', ...EXPOSED }),
    files: {
      'cjs/index.js': 'module.exports = {};\n',
      'esm/package.json': '{ "type": "module" }\n',
      'esm/index.js': workflowSource('export const flow =', 'modfield.flow'),
    },
  },
  {
    name: 'cond-flows',
    manifest: esm('cond-flows', {
      exports: { '.': { types: './index.d.ts', node: { import: './node.mjs', require: './node.cjs' }, default: './default.js' } },
      ...EXPOSED,
    }),
    files: { 'node.mjs': workflowSource('export const viaNode =', 'cond.node'), 'default.js': workflowSource('export const viaDefault =', 'cond.default') },
  },
  {
    // exports without an ESM "." target: main is not used, though it holds a workflow.
    name: 'no-esm',
    manifest: esm('no-esm', { exports: { '.': { require: './index.cjs' } }, main: './index.js', ...EXPOSED }),
    files: { 'index.js': workflowSource('export const flow =', 'noesm.flow') },
  },
  {
    name: 'bad-flag',
    manifest: esm('bad-flag', { main: 'index.js', flowgate: { workflows: { expose: 'yes' } } }),
    files: { 'index.js': workflowSource('export const flow =', 'badflag.flow') },
  },
];

interface Context {
  project: FixtureProject;
  discovery: PackageDiscovery;
  lines: string[];
}

const test = suite<Context>('package discovery', {} as Context);

test.before(async (context) => {
  context.project = await createFixtureProject(PACKAGES);
  const modules = join(context.project.dir, 'node_modules');
  // npm link: the package lives elsewhere (inside the project, so that it still finds flowgate and zod).
  const linked = join(context.project.dir, 'linked', 'flows');
  await mkdir(linked, { recursive: true });
  await writeFile(join(linked, 'package.json'), JSON.stringify(esm('linked-flows', { main: 'index.js', ...EXPOSED })));
  await writeFile(join(linked, 'index.js'), workflowSource('export const flow =', 'linked.flow'));
  await symlink(linked, join(modules, 'linked-flows'), 'dir');
  await mkdir(join(modules, 'broken-json'));
  await writeFile(join(modules, 'broken-json', 'package.json'), '{ "name": ');
  await mkdir(join(modules, 'array-json'));
  await writeFile(join(modules, 'array-json', 'package.json'), '[]');
  context.discovery = await discoverPackagedWorkflows(context.project.dir);
  context.lines = context.discovery.warnings.map((warning) => formatDiscoveryWarning(warning));
});

test.after(async (context) => {
  await context.project?.remove();
});

const linesOf = (lines: string[], pkg: string) => lines.filter((line) => line.startsWith(`package ${pkg}: `));
const namesOf = (discovery: PackageDiscovery, pkg: string) =>
  discovery.workflows.filter(({ origin }) => origin.kind === 'package' && origin.packageName === pkg).map(({ definition }) => definition.name);

test('exposed packages contribute their workflows, packages by name and workflows in export order', ({ discovery }) => {
  assert.equal(
    discovery.workflows.map(({ definition }) => definition.name),
    ['acme.leaf', 'acme.inner', 'cond.node', 'cycle.a', 'cycle.b', 'cycle.c', 'linked.flow', 'modfield.flow', 'odd.good', 'odd.dup', 'odd.dup', 'plain.shout'],
  );
  assert.equal(
    discovery.exposedPackages.map(({ name }) => name),
    ['@acme/flows', 'cjs-flows', 'cond-flows', 'cycle-flows', 'linked-flows', 'module-field', 'no-esm', 'odd-flows', 'plain-flows'],
  );
});

test('a package that is not exposed is skipped silently: no workflow, no warning, not listed', ({ discovery, lines }) => {
  assert.equal(namesOf(discovery, 'hidden-flows'), []);
  assert.equal(linesOf(lines, 'hidden-flows'), []);
  assert.not.ok(discovery.exposedPackages.some(({ name }) => name === 'hidden-flows'));
});

test('each workflow names its declaring module and that module\'s export name, which really hold the definition', async ({ discovery, project }) => {
  const byName = new Map(discovery.workflows.map((found) => [found.definition.name, found]));
  const acme = join(project.dir, 'node_modules', '@acme', 'flows');
  assert.equal(
    ['acme.leaf', 'acme.inner', 'plain.shout'].map((name) => [byName.get(name)!.modulePath, byName.get(name)!.exportName]),
    [
      [join(acme, 'dist', 'chain', 'leaf.js'), 'default'],
      [join(acme, 'dist', 'chain', 'inner.js'), 'inner'],
      [join(project.dir, 'node_modules', 'plain-flows', 'index.js'), 'shout'],
    ],
  );
  assert.equal(byName.get('acme.inner')!.origin, { kind: 'package', packageName: '@acme/flows', packageDir: acme, file: join(acme, 'dist', 'chain', 'inner.js') });
  for (const found of discovery.workflows) {
    const module = (await import(pathToFileURL(found.modulePath).href)) as Record<string, unknown>;
    assert.is(module[found.exportName], found.definition, `${found.definition.name}: ${found.modulePath}#${found.exportName}`);
  }
  assert.equal(await byName.get('plain.shout')!.definition.fn({ text: 'hi' }, {} as never), { text: 'HI' });
});

test('a symlinked package (npm link) is found under its installed path', ({ discovery, project }) => {
  const linked = discovery.workflows.find(({ definition }) => definition.name === 'linked.flow')!;
  assert.is(linked.origin.kind === 'package' && linked.origin.packageDir, join(project.dir, 'node_modules', 'linked-flows'));
});

test('exports conditions: the import condition over require, node before default in key order, the module field as ESM', ({ discovery, lines }) => {
  assert.equal(namesOf(discovery, '@acme/flows'), ['acme.leaf', 'acme.inner'], 'not the require build');
  assert.equal(namesOf(discovery, 'cond-flows'), ['cond.node']);
  assert.equal(namesOf(discovery, 'module-field'), ['modfield.flow']);
  assert.equal(linesOf(lines, 'cond-flows'), []);
  assert.equal(linesOf(lines, 'module-field'), []);
});

test('cycles in re-exports end, and every workflow in them is found once', ({ discovery, lines }) => {
  assert.equal(namesOf(discovery, 'cycle-flows'), ['cycle.a', 'cycle.b', 'cycle.c']);
  assert.equal(linesOf(lines, 'cycle-flows'), []);
});

test('the warning line of the example: package, file from node_modules on, line, and the advice', ({ lines }) => {
  assert.equal(linesOf(lines, '@acme/flows'), [
    "package @acme/flows: node_modules/@acme/flows/dist/index.js:12: namespace re-export \"export * as ns from './x.js'\" is not followed; export each workflow by name (export { x } from './x.js')",
  ]);
});

test('each unsupported form, missing file, syntax error, refused specifier and bad name is one warning with file and line', ({ discovery, lines }) => {
  const odd = linesOf(lines, 'odd-flows');
  const expected = [
    /^package odd-flows: node_modules\/odd-flows\/index\.js:2: namespace re-export "export \* as ns from '\.\/good\.js'" is not followed/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:4: namespace import "all" \(import \* as all from '\.\/good\.js'\) is exported as "all"/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:5: dynamic import\('\.\/good\.js'\) is not followed/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:6: dynamic import\(\) with a computed path is not followed/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:7: re-export from "other-package" is not followed: it names another package/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:8: re-export from "\.\.\/plain-flows\/index\.js" leaves the package directory/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:9: re-export from "\.\/missing\.js": file not found/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:10: "nope" is not exported by \.\/good\.js$/,
    /^package odd-flows: node_modules\/odd-flows\/index\.js:17: CommonJS require\('\.\/legacy\.js'\) is not followed/,
    /^package odd-flows: node_modules\/odd-flows\/broken\.js:2: syntax error, the module is skipped: /,
    /^package odd-flows: node_modules\/odd-flows\/legacy\.js:1: CommonJS export "exports\.flow = …" is not followed/,
    /^package odd-flows: node_modules\/odd-flows\/legacy\.js:2: CommonJS export "module\.exports = …" is not followed/,
    /^package odd-flows: node_modules\/odd-flows\/legacy\.js:3: CommonJS export Object\.defineProperty\(exports, …\) is not followed/,
    /^package odd-flows: node_modules\/odd-flows\/bundle\.js:4: export "bundle" is assembled at run time and holds workflows "odd\.good", "odd\.dup", "odd\.stray"; .*export each workflow by name \("odd\.good", "odd\.dup" are already served through its own export\)$/,
    /^package odd-flows: node_modules\/odd-flows\/bundle\.js:6: the default export is assembled at run time and holds workflows "odd\.stray"; .*export each workflow by name$/,
    /^package odd-flows: node_modules\/odd-flows\/boom\.js: importing the module failed: Error: boom at import$/,
  ];
  for (const pattern of expected) assert.is(odd.filter((line) => pattern.test(line)).length, 1, `one line matching ${pattern} in:\n${odd.join('\n')}`);
  assert.is(odd.length, expected.length, odd.join('\n'));
  for (const warning of discovery.warnings) assert.ok(resolve(warning.file) === warning.file, 'files are absolute');
});

test('what a warning stops is not served: the import that failed, the runtime-assembled export', ({ discovery }) => {
  assert.equal(namesOf(discovery, 'odd-flows'), ['odd.good', 'odd.dup', 'odd.dup']);
});

test('two definitions of one name in a package are both reported, for the one name space to refuse (collisions.test.ts)', ({ discovery }) => {
  const dups = discovery.workflows.filter(({ definition }) => definition.name === 'odd.dup');
  assert.equal(dups.map(({ modulePath, exportName }) => [modulePath.split('/').pop(), exportName]), [['dup-a.js', 'dupA'], ['dup-b.js', 'dupB']]);
  assert.is.not(dups[0]!.definition, dups[1]!.definition);
});

test('a CommonJS entry is one warning and contributes nothing', ({ discovery, lines }) => {
  assert.equal(linesOf(lines, 'cjs-flows'), [
    'package cjs-flows: node_modules/cjs-flows/index.js: the entry is CommonJS (set "type": "module" or use .mjs); CommonJS exports are not followed',
  ]);
  assert.equal(namesOf(discovery, 'cjs-flows'), []);
});

test('exports without an ESM "." target is a warning, and main is not used instead', ({ discovery, lines }) => {
  const noEsm = linesOf(lines, 'no-esm');
  assert.is(noEsm.length, 1, noEsm.join('\n'));
  assert.match(noEsm[0]!, /^package no-esm: node_modules\/no-esm\/package\.json: no ESM entry: its "exports" has no ESM target for "\."/);
  assert.equal(namesOf(discovery, 'no-esm'), []);
});

test('a malformed expose flag or package.json is a warning; such a package contributes nothing', ({ discovery, lines }) => {
  assert.equal(linesOf(lines, 'bad-flag'), [
    'package bad-flag: node_modules/bad-flag/package.json: "flowgate.workflows.expose" must be the boolean true to expose the package (found "yes"); skipped',
  ]);
  assert.equal(namesOf(discovery, 'bad-flag'), []);
  assert.match(linesOf(lines, 'broken-json').join('\n'), /^package broken-json: node_modules\/broken-json\/package\.json: its package\.json is not valid JSON/);
  assert.equal(linesOf(lines, 'array-json'), ['package array-json: node_modules/array-json/package.json: its package.json is not a JSON object; skipped']);
  assert.not.ok(discovery.exposedPackages.some(({ name }) => ['bad-flag', 'broken-json', 'array-json'].includes(name)));
});

test('an entry file that does not exist is a warning, and the package contributes nothing', async () => {
  const project = await createFixtureProject([{ name: 'gone-entry', manifest: esm('gone-entry', { main: 'dist/index.js', ...EXPOSED }), files: {} }]);
  try {
    const discovery = await discoverPackagedWorkflows(project.dir);
    const lines = discovery.warnings.map((warning) => formatDiscoveryWarning(warning));
    assert.match(linesOf(lines, 'gone-entry').join('\n'), /its entry dist\/index\.js \(from "main"\) does not exist/);
    assert.equal(discovery.workflows, []);
  } finally {
    await project.remove();
  }
});

test('the packages that only support the fixtures (flowgate, zod) and clean packages give no warning', ({ lines }) => {
  for (const name of ['flowgate', 'zod', 'plain-flows', 'linked-flows']) assert.equal(linesOf(lines, name), [], name);
});

test('a project without node_modules, or with only unexposed packages, discovers nothing', async () => {
  assert.equal(await discoverPackagedWorkflows(join(resolve('/'), 'flowgate-no-such-project')), { workflows: [], warnings: [], exposedPackages: [] });
  const project = await createFixtureProject([PACKAGES.find(({ name }) => name === 'hidden-flows')!]);
  try {
    assert.equal(await discoverPackagedWorkflows(project.dir), { workflows: [], warnings: [], exposedPackages: [] });
  } finally {
    await project.remove();
  }
});

test('formatDiscoveryWarning: one line, the file from the holding node_modules on, else relative to a project, else absolute', () => {
  const pkgFile = join(resolve('/srv/app'), 'node_modules', '@acme', 'flows', 'node_modules', 'inner', 'x.js');
  assert.is(
    formatDiscoveryWarning({ packageName: '@acme/flows', file: join(resolve('/srv/app'), 'node_modules', '@acme', 'flows', 'a.js'), line: 3, message: 'm' }),
    `package @acme/flows: ${join('node_modules', '@acme', 'flows', 'a.js')}:3: m`,
  );
  assert.is(
    formatDiscoveryWarning({ packageName: '@acme/flows', file: pkgFile, message: 'first\nsecond' }),
    `package @acme/flows: ${join('node_modules', '@acme', 'flows', 'node_modules', 'inner', 'x.js')}: first second`,
    'the package directory, not the innermost node_modules; a message never breaks the line',
  );
  const outside = join(resolve('/opt/linked'), 'index.js');
  assert.is(formatDiscoveryWarning({ packageName: 'linked', file: outside, message: 'm' }), `package linked: ${outside}: m`);
  assert.is(formatDiscoveryWarning({ packageName: 'linked', file: outside, line: 1, message: 'm' }, resolve('/opt')), `package linked: ${join('linked', 'index.js')}:1: m`);
});

test.run();
