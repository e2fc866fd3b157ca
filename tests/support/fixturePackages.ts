import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FixturePackage {
  /** `name` or `@scope/name`. */
  name: string;
  /** package.json. */
  manifest: Record<string, unknown>;
  /** Path inside the package → source. */
  files: Record<string, string>;
}

export interface FixtureProject {
  dir: string;
  remove(): Promise<void>;
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const AUTHORING_API = join(REPO, 'core', 'definition', 'index.ts');

/**
 * A worker project in a temp directory: `node_modules` holds the given packages, plus `flowgate` (the authoring API
 * of this checkout, so packages `import { workflow } from 'flowgate'` as published ones do) and `zod` (this checkout's
 * copy). `projectFiles` are written at the project root (local workflow and step modules).
 */
export async function createFixtureProject(packages: readonly FixturePackage[], projectFiles: Record<string, string> = {}): Promise<FixtureProject> {
  const dir = await mkdtemp(join(tmpdir(), 'flowgate-project-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await writeFiles(dir, { 'package.json': JSON.stringify({ name: 'fixture-worker-project', private: true, type: 'module' }), ...projectFiles });
    const modules = join(dir, 'node_modules');
    await writeFiles(join(modules, 'flowgate'), {
      'package.json': JSON.stringify({ name: 'flowgate', type: 'module', exports: { '.': './index.js' } }),
      'index.js': `export * from ${JSON.stringify(AUTHORING_API)};\n`,
    });
    await symlink(join(REPO, 'node_modules', 'zod'), join(modules, 'zod'), 'dir');
    for (const pkg of packages) {
      await writeFiles(join(modules, ...pkg.name.split('/')), { 'package.json': JSON.stringify(pkg.manifest, null, 2), ...pkg.files });
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { dir, remove };
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}
