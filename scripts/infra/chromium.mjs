// Chromium for the browser tests (tests/browser), driven by playwright-core (a devDependency). Browsers downloaded by
// Playwright itself are not used: the tests run Debian's `chromium` package, installed with apt-get on first use,
// as Temporal's CLI is built on first use. Without it the browser suites fail; they never skip.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { devServer } from './product.mjs';

const { isExecutableFile } = devServer;

/** Where Debian (and Ubuntu's apt package) installs it. */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a headless Chromium that talks to nothing but the loopback servers under test: without the
 * background-networking, component-update and sync switches it tries to reach Google's services at start.
 * `--no-sandbox`: the tests run as root in containers, where Chromium's sandbox cannot start.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--metrics-recording-only',
  '--no-default-browser-check',
];

/** @typedef {(line: string) => void} Log */

/** @type {Log} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * The Chromium binary: `CHROMIUM_PATH` when it names an executable, else /usr/bin/chromium, else installed now with
 * `apt-get install chromium` (as root, or through passwordless sudo). Fails with what to do when none of that works.
 * @param {{ log?: Log, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<string>}
 */
export async function ensureChromium({ log = logToStderr, env = process.env } = {}) {
  const override = env.CHROMIUM_PATH;
  if (override) {
    const path = resolve(override);
    if (!isExecutableFile(path)) throw new Error(`CHROMIUM_PATH=${override} is not an executable file`);
    return path;
  }
  if (isExecutableFile(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  if (!existsSync('/usr/bin/apt-get')) {
    throw new Error(`Chromium is not installed at ${SYSTEM_CHROMIUM} and this system has no apt-get: install Chromium and set CHROMIUM_PATH to its binary`);
  }
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  log(`installing Chromium for the browser tests: ${[...sudo, 'apt-get', 'install', '-y', 'chromium'].join(' ')}`);
  // Waits for a dpkg lock held by another install instead of failing at once.
  const lockWait = ['-o', 'DPkg::Lock::Timeout=300'];
  try {
    await run([...sudo, 'apt-get', ...lockWait, 'update'], env, log);
    await run([...sudo, 'apt-get', ...lockWait, 'install', '-y', 'chromium'], { ...env, DEBIAN_FRONTEND: 'noninteractive' }, log);
  } catch (error) {
    const hint = asRoot ? '' : ' (not root: apt-get ran through `sudo -n`, which needs passwordless sudo)';
    throw new Error(`could not install Chromium with apt-get${hint}: ${error instanceof Error ? error.message : error}. Install the chromium package, or set CHROMIUM_PATH.`);
  }
  if (!isExecutableFile(SYSTEM_CHROMIUM)) throw new Error(`apt-get installed chromium but ${SYSTEM_CHROMIUM} is missing: set CHROMIUM_PATH`);
  return SYSTEM_CHROMIUM;
}

/**
 * @param {string[]} command
 * @param {NodeJS.ProcessEnv} env
 * @param {Log} log
 * @returns {Promise<void>}
 */
function run(command, env, log) {
  return new Promise((resolvePromise, reject) => {
    const [file, ...args] = command;
    const child = spawn(/** @type {string} */ (file), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (/** @type {Buffer} */ chunk) => {
      tail = (tail + chunk.toString()).slice(-2000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) {
        log(`${command.join(' ')}: done`);
        resolvePromise();
      } else {
        reject(new Error(`${command.join(' ')} exited with ${code}: ${tail.trim().split('\n').slice(-3).join(' | ')}`));
      }
    });
  });
}
