// Runs one suite's process, echoing its output, within a time limit. The suite runs in a process group of its own,
// so a suite that hangs is ended whole (its uvu process, and the workers and servers it started) and the run goes on
// to its report instead of being cut off by CI's own time-out with nothing said.
import { spawn } from 'node:child_process';
import { stripAnsi } from './summary.mjs';

const KILL_GRACE_MS = 10_000;
/** uvu's last line. A process still running this long after it has left a handle open (a server, a timer). */
const SUMMARY_DONE = /^\s*Duration:\s/m;
const EXIT_AFTER_SUMMARY_MS = 60_000;
/** Enough of the output's end to hold the summary line with its colour codes. */
const SUMMARY_TAIL_CHARS = 512;

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
 * @param {number} [options.exitAfterSummaryMs] how long the process may go on once uvu has printed its summary.
 * @param {boolean} [options.echo] copy its output to this process's (true by default).
 * @returns {Promise<{ code: number, output: string, stopped?: string }>} output without ANSI colours; `stopped` says
 *   why the runner ended it (its time limit, or not exiting after its summary).
 */
export function runSuiteProcess({ command, args, cwd, env, timeLimitMs, exitAfterSummaryMs = EXIT_AFTER_SUMMARY_MS, echo = true }) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pid = /** @type {number} */ (child.pid);
    runningGroups.add(pid);
    let output = '';
    /** @type {string | undefined} */
    let stopped;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let forceKill;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let lingering;
    /** @param {string} why */
    const end = (why) => {
      if (stopped) return;
      stopped = why;
      echoTo(process.stdout)(`\n${why}: ending it\n`);
      signalGroup(pid, 'SIGTERM');
      forceKill = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    /** @param {NodeJS.WriteStream} stream */
    const echoTo = (stream) => (/** @type {Buffer | string} */ chunk) => {
      output += chunk;
      if (echo) stream.write(chunk);
      if (!lingering && SUMMARY_DONE.test(stripAnsi(output.slice(-SUMMARY_TAIL_CHARS)))) {
        lingering = setTimeout(() => end(`did not exit within ${Math.round(exitAfterSummaryMs / 1000)} s of its summary (a handle left open)`), exitAfterSummaryMs);
      }
    };
    child.stdout.on('data', echoTo(process.stdout));
    child.stderr.on('data', echoTo(process.stderr));
    const limit = setTimeout(() => end(`ran past its time limit of ${Math.round(timeLimitMs / 1000)} s`), timeLimitMs);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      clearTimeout(lingering);
      clearTimeout(forceKill);
      // Whatever the suite left behind in its group goes with it.
      signalGroup(pid, 'SIGKILL');
      runningGroups.delete(pid);
      resolvePromise({ code: code ?? (signal ? 1 : 0), output: stripAnsi(output), ...(stopped ? { stopped } : {}) });
    });
  });
}
