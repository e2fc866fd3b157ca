// Finds (or installs once) schemathesis, the OpenAPI fuzzer tests/fuzz runs against GET /openapi.json. It lives in a
// Python virtual environment in the user's cache (~/.cache/flowgate/schemathesis-<version>, next to the Go binaries
// in ~/.cache/flowgate/bin), never in the repo. The whole dependency tree is pinned in schemathesis-requirements.txt,
// so a seeded run (`st run --seed N`) generates the same requests on every machine.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { commandOutput, runCommand } from './goTool.mjs';
import { devServer } from './product.mjs';

const { killedWithParent, isExecutableFile } = devServer;

/** Pinned: the version tests/fuzz is written against (CLI flags, check names, config keys). */
export const SCHEMATHESIS_VERSION = '4.32.5';
/** schemathesis 4.x requires Python 3.11 or later. */
const MIN_PYTHON = [3, 11];
const REQUIREMENTS = join(dirname(fileURLToPath(import.meta.url)), 'schemathesis-requirements.txt');
/** Written last: a venv without it is a partial install (killed, or pip failed) and is rebuilt. */
const MARKER = '.flowgate-installed';
const LOCK_WAIT_MS = 5 * 60_000;
/** An install takes ~20 s; a lock this old belongs to a process that died without removing it. */
const LOCK_STALE_MS = 10 * 60_000;

/** @typedef {(line: string) => void} Log */

/** @type {Log} */
const logToStderr = (line) => {
  process.stderr.write(`${line}\n`);
};

/** Where the virtual environment is kept between runs (and between checkouts). */
export function schemathesisVenvDir() {
  return join(homedir(), '.cache', 'flowgate', `schemathesis-${SCHEMATHESIS_VERSION}`);
}

/** @param {string} path */
function readOrUndefined(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * `st --version` both proves the executable runs and names what we are using.
 * @param {string} stPath
 */
async function readStVersion(stPath) {
  const output = await commandOutput(stPath, ['--version']);
  const version = /version\s+(\S+)/i.exec(output)?.[1];
  if (!version) throw new Error(`${stPath} --version printed no version: ${output || 'no output'}`);
  return version;
}

/**
 * The interpreter the venv is made with: `SCHEMATHESIS_PYTHON` or `python3`, at least 3.11, with a working `venv`.
 * @param {NodeJS.ProcessEnv} env
 */
async function requirePython(env) {
  const python = env.SCHEMATHESIS_PYTHON || 'python3';
  const probe = 'import sys, venv, ensurepip; print("%d.%d.%d" % sys.version_info[:3])';
  /** @type {string[]} */
  const lines = [];
  const code = await runCommand(python, ['-c', probe], { env, onLine: (line) => lines.push(line) }).catch((error) => {
    if (error?.code === 'ENOENT') return undefined;
    throw error;
  });
  if (code === undefined) {
    throw new Error(
      `schemathesis is not installed and cannot be: ${python} was not found on PATH. Install Python >= ${MIN_PYTHON.join('.')} ` +
        `(Debian/Ubuntu: apt-get install python3 python3-venv), or set SCHEMATHESIS_PYTHON to an interpreter, ` +
        `or SCHEMATHESIS_CLI to an existing \`st\` executable of schemathesis ${SCHEMATHESIS_VERSION}.`,
    );
  }
  const output = lines.join('\n');
  if (code !== 0) {
    const missingVenv = /No module named '?(venv|ensurepip)/.test(output);
    throw new Error(
      missingVenv
        ? `${python} cannot create virtual environments (${output.trim().split('\n').at(-1)}). On Debian/Ubuntu: apt-get install python3-venv.`
        : `${python} failed to start (exit ${code}): ${output}`,
    );
  }
  const version = output.trim().split('\n').at(-1) ?? '';
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new Error(
      `schemathesis ${SCHEMATHESIS_VERSION} needs Python >= ${MIN_PYTHON.join('.')}, but ${python} is ${version}. ` +
        `Set SCHEMATHESIS_PYTHON to a newer interpreter.`,
    );
  }
  return { python, version };
}

/**
 * A cross-process lock: `mkdir` is atomic, and the owner file lets a waiter break the lock of a process that died.
 * @param {string} lockDir
 * @param {Log} log
 * @returns {Promise<() => void>} releases the lock.
 */
async function acquireLock(lockDir, log) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'owner'), `${process.pid}@${hostname()}\n`);
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
    if (isStaleLock(lockDir)) {
      log(`removing a stale schemathesis install lock: ${lockDir}`);
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${LOCK_WAIT_MS / 1000} s waiting for another schemathesis install (lock ${lockDir}); remove it if no install is running`);
    }
    if (!announced) log(`waiting for another process installing schemathesis (lock ${lockDir})`);
    announced = true;
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 500));
  }
}

/** @param {string} lockDir */
function isStaleLock(lockDir) {
  const owner = readOrUndefined(join(lockDir, 'owner'))?.trim();
  let age = 0;
  try {
    age = Date.now() - statSync(lockDir).mtimeMs;
  } catch {
    return false; // just released
  }
  if (age > LOCK_STALE_MS) return true;
  // Written right after mkdir; give its owner a moment before judging by the pid.
  if (!owner) return age > 10_000;
  const [pid, host] = owner.split('@');
  if (host !== hostname()) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'ESRCH';
  }
}

/**
 * @param {string} venvDir
 * @param {string} wanted the marker contents of a complete install of these requirements.
 * @param {NodeJS.ProcessEnv} env
 * @param {Log} log
 */
async function installVenv(venvDir, wanted, env, log) {
  const { python, version } = await requirePython(env);
  rmSync(venvDir, { recursive: true, force: true });
  mkdirSync(dirname(venvDir), { recursive: true });
  const startedAt = Date.now();
  log(`installing schemathesis ${SCHEMATHESIS_VERSION}: ${python} (${version}) -m venv ${venvDir}, pip install -r ${REQUIREMENTS}`);
  try {
    await commandOutput(python, ['-m', 'venv', venvDir], { env });
  } catch (error) {
    throw new Error(
      `${python} -m venv ${venvDir} failed; on Debian/Ubuntu install python3-venv (apt-get install python3-venv).\n${error instanceof Error ? error.message : error}`,
    );
  }
  const pip = [
    '-m', 'pip', 'install',
    '--disable-pip-version-check', '--no-input', '--require-virtualenv', '--quiet',
    '--requirement', REQUIREMENTS,
  ];
  try {
    // PIP_* from the caller's environment still apply (an index mirror, a proxy).
    await commandOutput(join(venvDir, 'bin', 'python'), pip, { env: { ...env, PYTHONNOUSERSITE: '1' } });
  } catch (error) {
    rmSync(venvDir, { recursive: true, force: true });
    throw new Error(`pip could not install schemathesis ${SCHEMATHESIS_VERSION} (is PyPI reachable?):\n${error instanceof Error ? error.message : error}`);
  }
  const stPath = join(venvDir, 'bin', 'st');
  const installed = await readStVersion(stPath);
  if (installed !== SCHEMATHESIS_VERSION) throw new Error(`pip installed schemathesis ${installed}, expected ${SCHEMATHESIS_VERSION}`);
  writeFileSync(join(venvDir, MARKER), wanted);
  log(`installed schemathesis ${SCHEMATHESIS_VERSION} in ${Math.round((Date.now() - startedAt) / 1000)} s`);
}

/**
 * @param {Log} log
 * @param {NodeJS.ProcessEnv} env
 */
async function locateOrInstall(log, env) {
  const fromEnv = env.SCHEMATHESIS_CLI;
  if (fromEnv) {
    const path = isAbsolute(fromEnv) ? fromEnv : resolve(fromEnv);
    // A wrong override is a configuration mistake; silently installing another copy would hide it.
    if (!isExecutableFile(path)) throw new Error(`SCHEMATHESIS_CLI=${fromEnv} is not an executable file`);
    const version = await readStVersion(path);
    if (version !== SCHEMATHESIS_VERSION) log(`warning: SCHEMATHESIS_CLI is schemathesis ${version}; the tests are written for ${SCHEMATHESIS_VERSION}`);
    return path;
  }

  const venvDir = schemathesisVenvDir();
  const stPath = join(venvDir, 'bin', 'st');
  const requirements = readFileSync(REQUIREMENTS, 'utf8');
  const wanted = `${SCHEMATHESIS_VERSION} ${createHash('sha256').update(requirements).digest('hex')}\n`;
  const isComplete = () => readOrUndefined(join(venvDir, MARKER)) === wanted && isExecutableFile(stPath);
  if (!isComplete()) {
    mkdirSync(dirname(venvDir), { recursive: true });
    const release = await acquireLock(`${venvDir}.lock`, log);
    try {
      // Another process may have finished the install while this one waited for the lock.
      if (!isComplete()) await installVenv(venvDir, wanted, env, log);
    } finally {
      release();
    }
  }
  await readStVersion(stPath).catch((error) => {
    throw new Error(`${stPath} does not run (remove ${venvDir} to reinstall): ${error instanceof Error ? error.message : error}`);
  });
  return stPath;
}

/** One lookup per process: the answer cannot change while the tests run. */
/** @type {Map<string, Promise<string>>} */
const resolved = new Map();

/**
 * Absolute path of schemathesis's `st` executable, version {@link SCHEMATHESIS_VERSION}: `$SCHEMATHESIS_CLI` if set,
 * else `~/.cache/flowgate/schemathesis-<version>/bin/st`, else installed there now (`python3 -m venv` and pip from
 * PyPI, about 20 s; needs Python >= 3.11 with the venv module). Concurrent installs wait on a lock.
 * @param {{ log?: Log, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<string>}
 */
export function ensureSchemathesis({ log = logToStderr, env = process.env } = {}) {
  const key = `${env.SCHEMATHESIS_CLI ?? ''}\u0000${env.SCHEMATHESIS_PYTHON ?? ''}\u0000${schemathesisVenvDir()}`;
  let answer = resolved.get(key);
  if (!answer) {
    answer = locateOrInstall(log, env);
    resolved.set(key, answer);
    // A failed attempt (say, PyPI was unreachable) may succeed later in the same process.
    answer.catch(() => resolved.delete(key));
  }
  return answer;
}

/**
 * Runs `st` with `args` and collects its output. The process dies with this one (killedWithParent, adapters/temporal/devServer/childProcess.ts), and is
 * killed (SIGTERM, then SIGKILL 5 s later) once `timeoutMs` has passed; `timedOut` then says so.
 * @param {string} stPath
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs: number }} options
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null, output: string, timedOut: boolean }>}
 */
export function runSchemathesis(stPath, args, { cwd, env = process.env, timeoutMs }) {
  return new Promise((resolvePromise, reject) => {
    // No colours, no interactive width guessing: the output goes into an assertion message.
    const child = spawn(...killedWithParent(stPath, args), {
      cwd,
      env: { ...env, NO_COLOR: '1', COLUMNS: '120', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (/** @type {Buffer} */ chunk) => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    /** @type {NodeJS.Timeout | undefined} */
    let killTimer;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    }, timeoutMs);
    const onExit = () => child.kill('SIGKILL');
    process.once('exit', onExit);
    child.once('error', (error) => {
      clearTimeout(timer);
      process.off('exit', onExit);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      process.off('exit', onExit);
      resolvePromise({ code, signal, output, timedOut });
    });
  });
}
