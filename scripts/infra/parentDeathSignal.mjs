// Makes the kernel kill a child process when this Node process dies, however it dies. Node's 'exit' event covers
// process.exit() and uncaught errors, but not SIGKILL or a default-handled SIGTERM (a CI time-out, a killed test
// runner): without this, such a death would leave a Temporal server running with its ports taken.
//
// Linux only, through util-linux's `setpriv --pdeathsig KILL -- command args` (it execs the command, so the pid, exit
// code and signals are the command's own). Where setpriv is missing (macOS), commands run as they are and the
// 'exit' handler in temporalServer.mjs is the only safety net.
//
// Caveat: the signal fires when the *thread* that spawned the child exits. child_process.spawn runs on the thread
// that calls it, so spawn servers from the main thread, not from a worker_thread that may end first.
import { spawnSync } from 'node:child_process';

/** @type {boolean | undefined} */
let supported;

function setprivSupportsPdeathsig() {
  if (supported === undefined) {
    supported =
      process.platform === 'linux' && spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' }).status === 0;
  }
  return supported;
}

/**
 * @param {string} command
 * @param {string[]} args
 * @returns {[string, string[]]} what to spawn instead.
 */
export function killedWithParent(command, args) {
  return setprivSupportsPdeathsig() ? ['setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, args];
}
