// Runs one suite's process, echoing its output, within a time limit. The suite runs in a process group of its own,
// so a suite that hangs is ended whole (its uvu process, and the workers and servers it started) and the run goes on
// to its report instead of being cut off by CI's own time-out with nothing said.
import { spawn } from 'node:child_process';
import { hasUvuSummary, stripAnsi } from './summary.mjs';

/** Between SIGTERM and SIGKILL when the runner ends a suite. */
const KILL_GRACE_MS = 10_000;
/** How long what a suite left in its group may hold its output open once its own process has exited. */
const AFTER_EXIT_GRACE_MS = 10_000;
/** A suite still running this long after its summary has left a handle open (a server, a timer). */
const EXIT_AFTER_SUMMARY_MS = 60_000;
/** Enough of the output's end to hold the summary. */
const SUMMARY_TAIL_CHARS = 1_024;

/** Process groups still running, ended with the runner however it ends. */
/** @type {Set<number>} */
const runningGroups = new Set();
let exitHookInstalled = false;

/** @param {number} pid @param {NodeJS.Signals} signal */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Ends every suite still running; for the runner's own signal handlers, and on its exit. */
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
 * @returns {Promise<{ code: number, output: string, signal?: string, stopped?: string }>} output without ANSI colours;
 *   `signal` the one that ended it (code is then 1: an out-of-memory kill leaves no word of its own); `stopped` says
 *   why the runner ended it (its time limit, or not exiting after its summary), or that it could not be started.
 */
export function runSuiteProcess({ command, args, cwd, env, timeLimitMs, exitAfterSummaryMs = EXIT_AFTER_SUMMARY_MS, echo = true }) {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Detached groups get no terminal signal and no parent-death signal: a runner that dies must end them itself.
    process.on('exit', killRunningSuites);
  }
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const { pid } = child;
    let output = '';
    /** @type {string | undefined} */
    let stopped;
    /** @type {ReturnType<typeof setTimeout>[]} */
    const timers = [];
    const later = (/** @type {() => void} */ action, /** @type {number} */ ms) => void timers.push(setTimeout(action, ms));
    let finished = false;
    /** @param {{ code: number, signal?: string, stopped?: string }} outcome */
    const finish = ({ code, signal, stopped: why }) => {
      if (finished) return;
      finished = true;
      for (const timer of timers) clearTimeout(timer);
      if (pid !== undefined) {
        // Whatever the suite left behind in its group goes with it.
        signalGroup(pid, 'SIGKILL');
        runningGroups.delete(pid);
      }
      resolvePromise({ code, output: stripAnsi(output), ...(signal ? { signal } : {}), ...(why ? { stopped: why } : {}) });
    };
    // Without a pid the spawn failed (EAGAIN, EMFILE, ENOENT): 'error' follows, 'close' may not.
    child.once('error', (error) => {
      if (pid === undefined) finish({ code: 1, stopped: `could not be started (${error.message})` });
    });
    if (pid === undefined) return;
    runningGroups.add(pid);

    /** @param {string} why */
    const end = (why) => {
      if (stopped) return;
      stopped = why;
      echoTo(process.stdout)(`\n${why}: ending it\n`);
      signalGroup(pid, 'SIGTERM');
      later(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    let lingering = false;
    /** @param {NodeJS.WriteStream} stream */
    const echoTo = (stream) => (/** @type {string} */ chunk) => {
      output += chunk;
      if (echo) stream.write(chunk);
      if (!lingering && hasUvuSummary(stripAnsi(output.slice(-SUMMARY_TAIL_CHARS)))) {
        lingering = true;
        later(() => end(`did not exit within ${Math.round(exitAfterSummaryMs / 1000)} s of its summary (a handle left open)`), exitAfterSummaryMs);
      }
    };
    // Decoded as a stream: a character split between two chunks stays whole.
    child.stdout.setEncoding('utf8').on('data', echoTo(process.stdout));
    child.stderr.setEncoding('utf8').on('data', echoTo(process.stderr));
    later(() => end(`ran past its time limit of ${Math.round(timeLimitMs / 1000)} s`), timeLimitMs);
    // 'close' waits for the pipes, which a grandchild may hold open after the suite's own process has gone.
    child.once('exit', () => later(() => signalGroup(pid, 'SIGKILL'), AFTER_EXIT_GRACE_MS));
    child.once('close', (code, signal) => finish({ code: code ?? (signal ? 1 : 0), ...(signal ? { signal } : {}), ...(stopped ? { stopped } : {}) }));
  });
}
