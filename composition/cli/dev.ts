import { spawn, type ChildProcess } from 'node:child_process';
import type { killedWithParent as launchKilledWithParent } from '../../adapters/temporal/devServer/index.js';
import { portOption, textOption, type CliContext, type Command } from './command.js';
import { untilSignal } from './signals.js';
import { assertInstalled, OPTIONAL_PACKAGES } from '../optionalPackages.js';

/** How long the worker and the API get to stop before they are killed. */
const CHILD_STOP_GRACE_MS = 15_000;

export const devCommand: Command = {
  name: 'dev',
  summary: 'a Temporal dev server, a worker and the API together, stopped together',
  synopsis: '[--workflows DIR] [--port N] [--host H]',
  description: [
    'Starts `temporal server start-dev` (in memory, on free loopback ports), `flowgate worker` and `flowgate serve`',
    'on it, and stops all three on Ctrl-C, or when one of them ends. The Temporal CLI is TEMPORAL_CLI, else',
    '`temporal` on PATH, else ~/.cache/flowgate/bin/temporal. The worker publishes its catalog a few seconds after',
    'it starts (it bundles the workflows first); until then the API answers 404 for it.',
  ].join('\n'),
  options: {
    workflows: { type: 'string', value: 'DIR', description: 'directory of workflow modules (WORKFLOWS_DIR; default ./workflows)' },
    port: { type: 'string', value: 'N', description: "the API's port (PORT; default 3001)" },
    host: { type: 'string', value: 'H', description: "the API's interface (HOST; default 127.0.0.1)" },
  },
  async run(values, context) {
    const workflows = textOption(values.workflows, 'workflows');
    const serveArgs = [
      ...(values.port !== undefined ? ['--port', portOption(values.port, 'port')!] : []),
      ...(values.host !== undefined ? ['--host', textOption(values.host, 'host')!] : []),
    ];
    // Before the dev server starts: the worker it starts would find them missing only after it.
    assertInstalled(OPTIONAL_PACKAGES.temporalWorker, 'The Temporal worker');
    // Loaded here, not with the command table: the dev server's launcher brings the Temporal client, which the
    // commands that only call the API do without.
    const { killedWithParent, locateTemporalCli, startTemporalDevServer } = await import('../../adapters/temporal/devServer/index.js');
    const cliPath = locateTemporalCli(context.env);
    const log = (line: string) => context.stderr(`flowgate dev: ${line}\n`);
    const temporal = await startTemporalDevServer({ cliPath, log });
    const env = { ...context.env, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace };
    const workflowArgs = workflows === undefined ? [] : ['--workflows', workflows];
    const start = (args: string[]) => startChild(context, args, env, killedWithParent);
    const children = [start(['worker', ...workflowArgs]), start(['serve', ...workflowArgs, ...serveArgs])];
    const firstExit = Promise.race(children.map(({ exited }) => exited));
    const ended = await Promise.race([untilSignal().then((signal) => ({ signal })), firstExit.then((code) => ({ code }))]);
    log('code' in ended ? `a process ended (exit code ${String(ended.code)}); stopping the others` : `${ended.signal} received; stopping the API, the worker and the Temporal dev server`);
    await Promise.all(children.map(stopChild));
    await temporal.stop();
    return 'code' in ended ? (ended.code === 0 ? 0 : 1) : 0;
  },
};

interface Child {
  process: ChildProcess;
  exited: Promise<number | null>;
}

/** One more `flowgate` of the same installation (the same Node flags: under tsx in development, too). */
function startChild(
  context: CliContext,
  args: string[],
  env: Record<string, string | undefined>,
  killedWithParent: typeof launchKilledWithParent,
): Child {
  const { execPath, execArgv, script } = context.entry;
  const [command, commandArgs] = killedWithParent(execPath, [...execArgv, script, ...args]);
  // A process group of its own: Ctrl-C at the terminal reaches `flowgate dev` alone, which stops each child once, gracefully.
  const child = spawn(command, commandArgs, { env, stdio: 'inherit', detached: true });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  return { process: child, exited };
}

async function stopChild(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), CHILD_STOP_GRACE_MS);
  await child.exited;
  clearTimeout(timer);
}
