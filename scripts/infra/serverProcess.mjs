// A test server run as a child process: its output tail kept for error messages, killed when this Node process
// exits, and stopped with SIGTERM then SIGKILL. Shared by the Temporal dev server and the S3 gateway launchers.
import { spawn } from 'node:child_process';
import { killedWithParent } from './parentDeathSignal.mjs';

const OUTPUT_TAIL_CHARS = 16_000;

// Children still alive, killed when this process exits so no server outlives the tests. An 'exit' handler must be
// synchronous, hence SIGKILL. Ctrl-C at a terminal reaches the child directly (same process group); deaths that skip
// 'exit' (SIGKILL, an unhandled SIGTERM) are covered on Linux by parentDeathSignal.mjs.
/** @type {Set<import('node:child_process').ChildProcess>} */
const liveChildren = new Set();
let exitHookInstalled = false;
function killChildrenOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
  });
}

/**
 * @typedef {object} RunningProcess
 * @property {import('node:child_process').ChildProcess} child
 * @property {Promise<{ code: number | null, signal: NodeJS.Signals | null, error?: Error }>} exited
 * @property {() => boolean} hasExited
 * @property {() => string} output
 * @property {boolean} stopRequested set before we signal it, so its exit is not reported as unexpected.
 */

/**
 * @param {string} binary
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env] defaults to this process's environment
 * @returns {RunningProcess}
 */
export function launch(binary, args, env) {
  const child = spawn(...killedWithParent(binary, args), { ...(env ? { env } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  /** @param {Buffer} chunk */
  const keep = (chunk) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let done = false;
  liveChildren.add(child);
  killChildrenOnExit();
  /** @type {RunningProcess['exited']} */
  const exited = new Promise((resolvePromise) => {
    const finish = (/** @type {{ code: number | null, signal: NodeJS.Signals | null, error?: Error }} */ info) => {
      if (done) return;
      done = true;
      liveChildren.delete(child);
      resolvePromise(info);
    };
    // 'error' without 'exit' happens when the binary cannot be spawned at all (ENOENT, EACCES).
    child.once('error', (error) => finish({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => finish({ code, signal }));
  });
  return { child, exited, hasExited: () => done, output: () => tail, stopRequested: false };
}

/**
 * SIGTERM, then SIGKILL when the process is still there after `graceMs`.
 * @param {RunningProcess} running
 * @param {number} graceMs
 */
export async function terminate(running, graceMs) {
  running.stopRequested = true;
  if (running.hasExited()) return;
  running.child.kill('SIGTERM');
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const stoppedInTime = await Promise.race([
    running.exited.then(() => true),
    new Promise((resolvePromise) => {
      timer = setTimeout(() => resolvePromise(false), graceMs);
    }),
  ]);
  clearTimeout(timer);
  if (!stoppedInTime) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
}

/**
 * A fault on purpose (tests/faults): the signal at once, no grace, and wait for the exit. Marked as requested, so
 * no unexpected-exit report follows.
 * @param {RunningProcess} running
 * @param {NodeJS.Signals} signal
 */
export async function killNow(running, signal) {
  if (running.hasExited()) return;
  running.stopRequested = true;
  running.child.kill(signal);
  await running.exited;
}
