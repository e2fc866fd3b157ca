import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';

export interface InstalledPackageDir {
  name: string;
  dir: string;
}

/**
 * Which installed package a module file belongs to. Node and webpack both load a symlinked package (npm link, a file:
 * dependency) from its real path, so the package directories are compared by their real paths too.
 */
export class PackageOwnership {
  private constructor(private readonly packages: readonly InstalledPackageDir[]) {}

  static async of(packages: readonly InstalledPackageDir[]): Promise<PackageOwnership> {
    const real = await Promise.all(packages.map(async ({ name, dir }) => ({ name, dir: await realpath(dir).catch(() => dir) })));
    // Longest directory first, so a package nested in another package's node_modules is found before its host.
    return new PackageOwnership([...packages, ...real].sort((a, b) => b.dir.length - a.dir.length));
  }

  /** The package name, or undefined for a file of the worker's own project. */
  ownerOf(file: string): string | undefined {
    return this.packages.find(({ dir }) => file === dir || file.startsWith(dir + sep))?.name;
  }

  /** Each package's directory as installed and as its real path (they differ for a symlinked package). */
  get directories(): string[] {
    return [...new Set(this.packages.map(({ dir }) => dir))];
  }
}
