// The machine's own Node when it is older than flowgate supports (20 on our machines): what someone who never
// installed a newer one runs `flowgate` and the repository's scripts with. The pinned releases the repository installs
// into ~/.cache/flowgate/node (and puts first on PATH) are not the machine's.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve, sep } from 'node:path';
import type { Callback, Test } from 'uvu';
import { unsupportedNodeMessage } from '../../composition/cli/nodeVersion.js';

export interface MachineNode {
  path: string;
  version: string;
}

const PINNED_RUNTIMES = join(homedir(), '.cache', 'flowgate') + sep;

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first `node` on PATH outside ~/.cache/flowgate, then /usr/local/bin/node, that is older than 22.13. */
export function unsupportedMachineNode(): MachineNode | undefined {
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && !resolve(dir).startsWith(PINNED_RUNTIMES))
    .map((dir) => join(resolve(dir), 'node'));
  for (const path of [...onPath, '/usr/local/bin/node']) {
    if (!isExecutableFile(path)) continue;
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim();
    if (version && unsupportedNodeMessage(version) !== undefined) return { path, version };
  }
  return undefined;
}

/**
 * `test` when the machine has an unsupported Node, or under CI (whose machines have Node 20: there its absence fails
 * the test, which must then assert it found one); elsewhere `test.skip`, which uvu counts and reports as skipped.
 */
export function whenUnsupportedNodeExpected<T>(test: Test<T>, node: MachineNode | undefined): (name: string, handler: Callback<T>) => void {
  return node !== undefined || process.env.CI === 'true' ? test : test.skip;
}
