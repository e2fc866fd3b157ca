// Prometheus' promtool, for the test that lints flowgate's metrics exposition (`promtool check metrics`). It comes
// from Debian's `prometheus` package, fetched with apt-get on first use and cached in ~/.cache/flowgate/bin, as the
// browser tests get Debian's chromium. The package is downloaded and unpacked, never installed: installing it starts
// a Prometheus server (its postinst runs the init script), which a test machine must not get as a side effect.
// Without promtool the suite fails; it never skips.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commandOutput } from './goTool.mjs';
import { temporalCliCacheDir } from './temporalCli.mjs';
import { devServer } from './product.mjs';

const { isExecutableFile } = devServer;

/** Where an installed `prometheus` package puts it. */
export const SYSTEM_PROMTOOL = '/usr/bin/promtool';

/** @typedef {(line: string) => void} Log */

/** @type {Log} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * The promtool binary: `PROMTOOL_PATH` when it names an executable, else /usr/bin/promtool, else the cached copy,
 * else Debian's `prometheus` package downloaded now (`apt-get download`; `apt-get update` first, as root or through
 * passwordless sudo, when the package lists do not know it yet) with promtool unpacked into the cache.
 * @param {{ log?: Log, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<string>}
 */
export async function ensurePromtool({ log = logToStderr, env = process.env } = {}) {
  const override = env.PROMTOOL_PATH;
  if (override) {
    const path = resolve(override);
    if (!isExecutableFile(path)) throw new Error(`PROMTOOL_PATH=${override} is not an executable file`);
    return path;
  }
  if (isExecutableFile(SYSTEM_PROMTOOL)) return SYSTEM_PROMTOOL;
  const binDir = temporalCliCacheDir();
  const cached = join(binDir, 'promtool');
  if (isExecutableFile(cached)) return cached;
  if (!existsSync('/usr/bin/apt-get')) {
    throw new Error('promtool is not installed and this system has no apt-get: install Prometheus\' promtool and set PROMTOOL_PATH to it');
  }
  mkdirSync(binDir, { recursive: true });
  const workDir = mkdtempSync(join(binDir, '.promtool-'));
  try {
    log('fetching promtool for the metrics tests: apt-get download prometheus (unpacked, not installed)');
    await downloadPackage('prometheus', workDir, env, log);
    const deb = readdirSync(workDir).find((name) => name.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download prometheus left no .deb');
    const unpacked = join(workDir, 'root');
    await commandOutput('dpkg-deb', ['-x', join(workDir, deb), unpacked]);
    const binary = join(unpacked, 'usr', 'bin', 'promtool');
    if (!isExecutableFile(binary)) throw new Error(`${deb} has no usr/bin/promtool`);
    // Copied next to its final name, then renamed: a concurrent reader never sees half a binary.
    const staged = join(workDir, 'promtool');
    copyFileSync(binary, staged);
    renameSync(staged, cached);
    log(`promtool: ${cached} (${(await commandOutput(cached, ['--version'])).split('\n')[0]})`);
    return cached;
  } catch (error) {
    throw new Error(`could not fetch promtool: ${error instanceof Error ? error.message : error}. Install the prometheus package's promtool and set PROMTOOL_PATH.`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * `apt-get download` into `dir`, with `apt-get update` first when the package lists do not have the package.
 * @param {string} name
 * @param {string} dir
 * @param {NodeJS.ProcessEnv} env
 * @param {Log} log
 */
async function downloadPackage(name, dir, env, log) {
  try {
    await commandOutput('apt-get', ['download', name], { cwd: dir, env });
    return;
  } catch (error) {
    log(`apt-get download ${name} failed (${firstLine(error)}); updating the package lists and trying again`);
  }
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const [command, ...args] = [...sudo, 'apt-get', '-o', 'DPkg::Lock::Timeout=300', 'update'];
  await commandOutput(/** @type {string} */ (command), args, { env });
  await commandOutput('apt-get', ['download', name], { cwd: dir, env });
}

/** @param {unknown} error */
function firstLine(error) {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}
