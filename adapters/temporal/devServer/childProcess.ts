import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

const OUTPUT_TAIL_CHARS = 16_000;

/** A server run as a child process: its output tail kept for error messages, stopped with SIGTERM then SIGKILL. */
export interface RunningProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;
  hasExited(): boolean;
  output(): string;
  /** Set before we signal it, so its exit is not reported as unexpected. */
  stopRequested: boolean;
}

// Children still alive, killed when this process exits so no server outlives it. An 'exit' handler must be
// synchronous, hence SIGKILL. Ctrl-C at a terminal reaches the child directly (same process group); deaths that skip
// 'exit' (SIGKILL, an unhandled SIGTERM) are covered on Linux by killedWithParent.
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function killChildrenOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
  });
}

/** Spawns `binary` with its output piped and kept (the last 16,000 characters). */
export function launch(binary: string, args: readonly string[], env?: NodeJS.ProcessEnv): RunningProcess {
  const [command, commandArgs] = killedWithParent(binary, args);
  const child = spawn(command, commandArgs, { ...(env ? { env } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let done = false;
  liveChildren.add(child);
  killChildrenOnExit();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    const finish = (info: { code: number | null; signal: NodeJS.Signals | null; error?: Error }): void => {
      if (done) return;
      done = true;
      liveChildren.delete(child);
      resolve(info);
    };
    // 'error' without 'exit' happens when the binary cannot be spawned at all (ENOENT, EACCES).
    child.once('error', (error) => finish({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => finish({ code, signal }));
  });
  return { child, exited, hasExited: () => done, output: () => tail, stopRequested: false };
}

/** SIGTERM, then SIGKILL when the process is still there after `graceMs`. */
export async function terminate(running: RunningProcess, graceMs: number): Promise<void> {
  running.stopRequested = true;
  if (running.hasExited()) return;
  running.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const stoppedInTime = await Promise.race([
    running.exited.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    }),
  ]);
  clearTimeout(timer);
  if (!stoppedInTime) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
}

/** A fault on purpose (tests): the signal at once, no grace, and wait for the exit; no unexpected-exit report follows. */
export async function killNow(running: RunningProcess, signal: NodeJS.Signals): Promise<void> {
  if (running.hasExited()) return;
  running.stopRequested = true;
  running.child.kill(signal);
  await running.exited;
}

let pdeathsigSupported: boolean | undefined;

/**
 * What to spawn so the kernel kills the child when this process dies, however it dies: Node's 'exit' event covers
 * process.exit() and uncaught errors, not SIGKILL or a default-handled SIGTERM, which would leave a Temporal server
 * running with its ports taken. Linux only, through util-linux's `setpriv --pdeathsig KILL -- command args` (it
 * execs the command: pid, exit code and signals are the command's own); elsewhere the command runs as it is.
 * The signal fires when the *thread* that spawned the child exits: spawn from the main thread.
 */
export function killedWithParent(command: string, args: readonly string[]): [string, string[]] {
  pdeathsigSupported ??= process.platform === 'linux' && spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' }).status === 0;
  return pdeathsigSupported ? ['setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, [...args]];
}
