import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticImportSpecifiers } from '../../../adapters/workflowSources/moduleImports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const TYPESCRIPT_MODULE = `
import type { Shape } from './types-only.js';
import { type Other, used } from './mixed.js';
import unused from './unused.js';
import './side-effect.js';
export { relay } from './relay.js';
export * from './all.js';
export type { Re } from './type-reexport.js';
enum Colour { Red, Green }
abstract class Base<T extends object = {}> { protected abstract value: T; }
const tuple = [1, 2] as const satisfies readonly number[];
function generic<T,>(value: T): T { return value; }
export async function load(): Promise<unknown> {
  await import('./lazy.js');
  return generic<Shape | Other>(used as unknown as Shape) ?? tuple ?? Colour.Red ?? Base;
}
`;

test('TypeScript: types stripped first; type-only imports are not loads, every other import is kept as written', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-imports-'));
  try {
    const file = join(dir, 'workflow.mts');
    await writeFile(file, TYPESCRIPT_MODULE);
    assert.equal((await staticImportSpecifiers(file)).sort(), [
      './all.js',
      './lazy.js',
      './mixed.js',
      './relay.js',
      './side-effect.js',
      './unused.js',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a TypeScript file that does not parse: one line naming it, the line and column, and the compiler\'s message', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-imports-'));
  try {
    const file = join(dir, 'broken.ts');
    await writeFile(file, 'import { a } from "./a.js";\nexport const x: = ;\n');
    const error = await staticImportSpecifiers(file).then(() => undefined, (caught: unknown) => caught as Error);
    assert.ok(error);
    assert.is(error.message, `cannot read the imports of ${file}: ${file}:2:17: Unexpected "="`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('reading a TypeScript module never loads the typescript package (a user project need not have it)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fg-imports-'));
  try {
    const file = join(dir, 'workflow.ts');
    await writeFile(file, TYPESCRIPT_MODULE);
    // A resolve hook that refuses `typescript`, registered before the module under test is loaded.
    const hook = `export async function resolve(specifier, context, next) {
      if (specifier === 'typescript' || specifier.startsWith('typescript/')) throw new Error('typescript was loaded');
      return next(specifier, context);
    }`;
    const script = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
      const { staticImportSpecifiers } = await import(${JSON.stringify(join(ROOT, 'adapters/workflowSources/moduleImports.ts'))});
      console.log(JSON.stringify(await staticImportSpecifiers(${JSON.stringify(file)})));
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.is(run.status, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).length, 6);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
