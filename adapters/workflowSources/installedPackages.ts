import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The manifestError of a directory without package.json: not a package at all (a leftover, a cache), so no warning. */
export const NO_MANIFEST = 'it has no package.json';

export interface InstalledPackage {
  name: string;
  dir: string;
  /** The parsed package.json; undefined when it is missing or does not parse (see manifestError). */
  manifest: unknown;
  manifestError?: string;
}

/**
 * Every package directly under `<projectDir>/node_modules`, scoped ones (`@scope/name`) included, symlinks followed
 * (npm link, file: dependencies), sorted by name. A project without node_modules has none.
 */
export async function installedPackages(projectDir: string): Promise<InstalledPackage[]> {
  const root = join(projectDir, 'node_modules');
  const names: string[] = [];
  for (const entry of await directoryNames(root)) {
    if (entry.startsWith('@')) names.push(...(await directoryNames(join(root, entry))).map((name) => `${entry}/${name}`));
    else names.push(entry);
  }
  names.sort();
  return Promise.all(names.map((name) => readPackage(name, join(root, ...name.split('/')))));
}

async function directoryNames(directory: string): Promise<string[]> {
  // A missing node_modules (or scope directory) simply holds no packages.
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    // `.bin`, `.package-lock.json`, `.pnpm`, `.cache`: npm's and other tools' bookkeeping, never a package.
    if (entry.name.startsWith('.')) continue;
    const isDirectory = entry.isDirectory() || (entry.isSymbolicLink() && (await stat(join(directory, entry.name)).then((s) => s.isDirectory(), () => false)));
    if (isDirectory) names.push(entry.name);
  }
  return names;
}

async function readPackage(name: string, dir: string): Promise<InstalledPackage> {
  let text: string;
  try {
    text = await readFile(join(dir, 'package.json'), 'utf8');
  } catch {
    return { name, dir, manifest: undefined, manifestError: NO_MANIFEST };
  }
  try {
    return { name, dir, manifest: JSON.parse(text) as unknown };
  } catch (error) {
    return { name, dir, manifest: undefined, manifestError: `its package.json is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}
