import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Where flowgate's own tooling keeps Temporal CLI builds (this repository's scripts/infra builds them there). */
export function temporalCliCacheDir(home: string = homedir()): string {
  return join(home, '.cache', 'flowgate', 'bin');
}

/** The Temporal CLI could not be found: says where it was looked for and how to get one, in one line. */
export class TemporalCliNotFoundError extends Error {
  override name = 'TemporalCliNotFoundError';

  constructor(readonly looked: readonly string[]) {
    super(
      `needs the Temporal CLI (temporal server start-dev), found in none of: ${looked.join(', ')}; ` +
        'install the Temporal CLI there, or set TEMPORAL_CLI to its path (docs/cli.md, flowgate dev)',
    );
  }
}

export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The Temporal CLI binary: `TEMPORAL_CLI` when it is set (it must name an executable: a wrong path is an error, not a
 * reason to look elsewhere), else `temporal` on PATH, else `~/.cache/flowgate/bin/temporal`.
 */
export function locateTemporalCli(env: Record<string, string | undefined>, home: string = homedir()): string {
  const fromEnv = env.TEMPORAL_CLI;
  if (fromEnv) {
    const path = isAbsolute(fromEnv) ? fromEnv : resolve(fromEnv);
    if (isExecutableFile(path)) return path;
    throw new TemporalCliNotFoundError([`TEMPORAL_CLI=${fromEnv} (not an executable file)`]);
  }
  const onPath = (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, process.platform === 'win32' ? 'temporal.exe' : 'temporal'));
  const cached = join(temporalCliCacheDir(home), 'temporal');
  const found = [...onPath, cached].find(isExecutableFile);
  if (found) return found;
  throw new TemporalCliNotFoundError(['TEMPORAL_CLI (unset)', 'temporal on PATH', cached]);
}
