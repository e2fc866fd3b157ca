// Child processes for the fault tests: the API (`flowgate serve`) and workers (`flowgate worker`), from the
// TypeScript sources, serving the example workflows unless WORKFLOWS_DIR says otherwise. Each is killed with this
// process however it dies (setpriv --pdeathsig on Linux, as scripts/infra does for its servers), and by an exit hook.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { CATALOG_MEMO_KEY, catalogWorkflowId, type CatalogMemo } from '../../adapters/temporal/protocol.js';
import { eventually } from '../support/eventually.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let pdeathsig: boolean | undefined;
function spawnArgs(args: string[], launcher: readonly string[]): [string, string[]] {
  pdeathsig ??= process.platform === 'linux' && spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' }).status === 0;
  const argv = [...launcher, process.execPath, ...args];
  return pdeathsig ? ['setpriv', ['--pdeathsig', 'KILL', '--', ...argv]] : [argv[0]!, argv.slice(1)];
}

export interface NodeProcessOptions {
  /**
   * A command that runs node in its place (its arguments end with node's): it must `exec` node, so the process keeps
   * the pid the test sees, and setpriv's parent-death signal, which survives exec. A mount namespace of its own, say.
   */
  launcher?: readonly string[];
}

const live = new Set<ChildProcess>();
let exitHook = false;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface NodeProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** JSON log lines printed on stdout so far. */
  logLines(): Record<string, unknown>[];
  exited: Promise<Exit>;
  isRunning(): boolean;
  /** Sends `signal` (SIGTERM by default), SIGKILL after `graceMs`; resolves with the exit. Safe to call twice. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
}

/** The example workflows the API and workers serve unless WORKFLOWS_DIR is given. */
const EXAMPLES = { WORKFLOWS_DIR: 'examples/workflows' };

/** Runs `node --import tsx <script> ...args` from the repository root with `env` over this process's environment. */
export function startNodeProcess(script: string, env: Record<string, string>, scriptArgs: string[] = [], options: NodeProcessOptions = {}): NodeProcess {
  const [command, args] = spawnArgs(['--import', 'tsx', script, ...scriptArgs], options.launcher ?? []);
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const running of live) running.kill('SIGKILL');
    });
  }
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  let done = false;
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<Exit> => {
    if (!done) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  const logLines = (): Record<string, unknown>[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  return { child, pid: child.pid!, stdout: () => stdout, stderr: () => stderr, logLines, exited, isRunning: () => !done, stop };
}

/** Waits until a log line satisfies `predicate`; fails when the process exits first or after `timeoutMs` (two minutes by default: a process that loads TypeScript and bundles workflows starts slowly while other suites run). */
export async function waitForLog(proc: NodeProcess, predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 120_000): Promise<Record<string, unknown>> {
  return eventually(
    () => `an expected log line of process ${proc.pid}:\n${proc.stdout()}\n${proc.stderr()}`,
    () => {
      const line = proc.logLines().find(predicate);
      if (line) return line;
      if (!proc.isRunning()) throw new Error(`process ${proc.pid} exited before the expected log line:\n${proc.stdout()}\n${proc.stderr()}`);
      return undefined;
    },
    { timeoutMs, intervalMs: 50 },
  );
}

/** The API server as `npm start` runs it; resolves with its URL once it listens. */
export async function startApiProcess(env: Record<string, string>, options: NodeProcessOptions = {}): Promise<NodeProcess & { url: string }> {
  const proc = startNodeProcess('composition/cli/main.ts', { HOST: '127.0.0.1', PORT: '0', ...EXAMPLES, ...env }, ['serve'], options);
  try {
    const line = await waitForLog(proc, (candidate) => candidate.msg === 'flowgate listening');
    return Object.assign(proc, { url: String(line.url) });
  } catch (error) {
    await proc.stop('SIGKILL');
    throw error;
  }
}

/** A worker as `flowgate worker` runs it (not yet waited on: see waitForOnlineWorkers). */
export function startWorkerProcess(env: Record<string, string>): NodeProcess {
  return startNodeProcess('composition/cli/main.ts', { ...EXAMPLES, ...env }, ['worker']);
}

/**
 * Waits until the catalog's memo lists `count` online workers (each publishes itself once it polls) and returns
 * their identities (`<pid>@<host>/<catalog>/<random>`).
 */
export async function waitForOnlineWorkers(
  temporal: { address: string; namespace: string },
  catalog: string,
  count: number,
  workers: NodeProcess[] = [],
  timeoutMs = 90_000,
): Promise<string[]> {
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const handle = new Client({ connection, namespace: temporal.namespace }).workflow.getHandle(catalogWorkflowId(catalog));
    let online: string[] = [];
    return await eventually(
      () => `${count} workers online in catalog ${catalog} (${online.length} were)`,
      async () => {
        const memo = await handle.describe().then((description) => description.memo?.[CATALOG_MEMO_KEY] as CatalogMemo | undefined, () => undefined);
        online = [...(memo?.onlineWorkers ?? [])];
        if (online.length >= count) return online;
        const dead = workers.find((worker) => !worker.isRunning());
        if (dead) throw new Error(`worker ${dead.pid} exited before it published:\n${dead.stdout()}\n${dead.stderr()}`);
        return undefined;
      },
      { timeoutMs },
    );
  } finally {
    await connection.close();
  }
}
