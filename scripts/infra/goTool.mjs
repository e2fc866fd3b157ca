// Running the Go toolchain (and other commands) from the infra scripts, with progress for slow builds.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** @typedef {(line: string) => void} Log */

/**
 * Runs a command, streaming its output lines to `onLine`; resolves with the exit code, rejects if it cannot start.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, onLine?: (line: string) => void }} [options]
 * @returns {Promise<number>}
 */
export function runCommand(command, args, { cwd, env = process.env, onLine = () => {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.once('error', reject);
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.once('close', (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

/**
 * Runs a command and returns its output; throws with that output when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export async function commandOutput(command, args, options = {}) {
  /** @type {string[]} */
  const lines = [];
  const code = await runCommand(command, args, { ...options, onLine: (line) => lines.push(line) });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${lines.join('\n')}`);
  return lines.join('\n');
}

/**
 * Fails with an actionable message when Go is missing, instead of a bare ENOENT.
 * @param {string} what what was about to be built, for the message.
 */
export async function requireGo(what) {
  const code = await runCommand('go', ['version']).catch((error) => {
    if (error?.code === 'ENOENT') return undefined;
    throw error;
  });
  if (code !== 0) {
    throw new Error(
      `${what} is not installed and cannot be built: the Go toolchain (go >= 1.25) was not found on PATH. ` +
        `Install Go, or point TEMPORAL_CLI at an existing temporal binary.`,
    );
  }
}

/**
 * Runs a long `go install -v` / `go build -v`, logging a heartbeat every 30 s: those print one line per package
 * compiled, enough to show progress but far too many to echo.
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, log: Log, what: string }} options
 */
export async function runGoWithProgress(args, { cwd, env = process.env, log, what }) {
  const startedAt = Date.now();
  let lines = 0;
  /** @type {string[]} */
  const recent = [];
  const heartbeat = setInterval(() => {
    log(`still building ${what}: ${Math.round((Date.now() - startedAt) / 1000)} s, ${lines} packages so far`);
  }, 30_000);
  try {
    const code = await runCommand('go', args, {
      cwd,
      env,
      onLine: (line) => {
        lines += 1;
        recent.push(line);
        if (recent.length > 40) recent.shift();
      },
    });
    if (code !== 0) throw new Error(`go ${args.join(' ')} failed (exit ${code}):\n${recent.join('\n')}`);
  } finally {
    clearInterval(heartbeat);
  }
  log(`built ${what} in ${Math.round((Date.now() - startedAt) / 1000)} s`);
}
