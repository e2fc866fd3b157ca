// Runs one suite's process, echoing its output, within a time limit. The suite runs in a process group of its own,
// so a suite that hangs is ended whole (its uvu process, and the workers and servers it started) and the run goes on
// to its report instead of being cut off by CI's own time-out with nothing said.
import { spawn } from 'node:child_process';
import { stripAnsi } from './summary.mjs';

const KILL_GRACE_MS = 10_000;

/** Process groups still running, ended with the runner (Ctrl-C, SIGTERM). */
/** @type {Set<number>} */
const runningGroups = new Set();

/** @param {number} pid @param {NodeJS.Signals} signal */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Ends every suite still running; for the runner's own signal handlers. */
export function killRunningSuites() {
  for (const pid of runningGroups) signalGroup(pid, 'SIGKILL');
}

/**
 * @param {object} options
 * @param {string} options.command
 * @param {string[]} options.args
 * @param {string} options.cwd
 * @param {NodeJS.ProcessEnv} options.env
 * @param {number} options.timeLimitMs
 * @returns {Promise<{ code: number, output: string, timedOut: boolean }>} output without ANSI colours.
 */
export function runSuiteProcess({ command, args, cwd, env, timeLimitMs }) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pid = /** @type {number} */ (child.pid);
    runningGroups.add(pid);
    let output = '';
    let timedOut = false;
    /** @param {NodeJS.WriteStream} stream */
    const echoTo = (stream) => (/** @type {Buffer | string} */ chunk) => {
      output += chunk;
      stream.write(chunk);
    };
    child.stdout.on('data', echoTo(process.stdout));
    child.stderr.on('data', echoTo(process.stderr));
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let forceKill;
    const limit = setTimeout(() => {
      timedOut = true;
      echoTo(process.stdout)(`\nthe suite ran past its time limit of ${Math.round(timeLimitMs / 1000)} s: ending it\n`);
      signalGroup(pid, 'SIGTERM');
      forceKill = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    }, timeLimitMs);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      clearTimeout(forceKill);
      // Whatever the suite left behind in its group goes with it.
      signalGroup(pid, 'SIGKILL');
      runningGroups.delete(pid);
      resolvePromise({ code: code ?? (signal ? 1 : 0), output: stripAnsi(output), timedOut });
    });
  });
}
