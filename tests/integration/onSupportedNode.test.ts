// scripts/onSupportedNode.mjs, which package.json's scripts (npm start, npm test, ...) run through: started by the
// machine's Node 20, it runs the program on the pinned Node 24 with its bin first on PATH, passes on the program's exit
// code, forwards SIGINT and SIGTERM sent to it, and never doubles the Ctrl-C a terminal already sent the program.
// And the `flowgate` command from the sources on Node 20: one line, exit 2.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { PINNED_NODE_VERSIONS, nodeRuntimeCacheDir } from '../../scripts/infra/index.mjs';
import { unsupportedMachineNode, whenUnsupportedNodeExpected } from '../support/unsupportedNode.js';
import { CLI, ROOT, runCommand } from './process.js';

const WRAPPER = join(ROOT, 'scripts', 'onSupportedNode.mjs');
const NODE_24 = join(nodeRuntimeCacheDir(), PINNED_NODE_VERSIONS['24'], 'bin', 'node');
const oldNode = unsupportedMachineNode();

/**
 * A program that says where it runs, counts the SIGINTs and SIGTERMs it gets, and exits 10 + that count a second after
 * the first (time for a duplicate to arrive), or 0 after 20 s without one.
 */
const COUNTING_PROGRAM = `
let signals = 0;
const count = () => {
  signals += 1;
  if (signals === 1) setTimeout(() => process.exit(10 + signals), 1000);
};
process.on('SIGINT', count);
process.on('SIGTERM', count);
setTimeout(() => process.exit(0), 20000);
console.log(JSON.stringify({ pid: process.pid, version: process.version, firstOnPath: process.env.PATH.split(':')[0] }));
`;

interface Started {
  child: ChildProcess;
  output: () => string;
  /** The program's first line, once it is running (and handling its signals). */
  ready: Promise<{ pid: number; version: string; firstOnPath: string }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `detached`: a session of its own, away from any terminal this test may run in, for signals sent to it alone. */
function start(command: string, args: string[], { stdin = 'ignore', detached = false }: { stdin?: 'ignore' | 'pipe'; detached?: boolean } = {}): Started {
  const child = spawn(command, args, { cwd: ROOT, stdio: [stdin, 'pipe', 'pipe'], detached });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<{ pid: number; version: string; firstOnPath: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the program did not start within 30 s:\n${output}`)), 30_000);
    child.stdout!.on('data', () => {
      const line = /\{"pid".*\}/.exec(output)?.[0];
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before the program started:\n${output}`));
    });
  });
  return { child, output: () => output, ready, exited };
}

/** Ends the script and the program it started, whatever the test got to. */
async function stopAll(started: Started, programPid?: number): Promise<void> {
  if (programPid !== undefined) {
    try {
      process.kill(programPid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
  await started.exited;
}

const wrapper = suite('scripts/onSupportedNode.mjs');

// Runs where the machine has no old Node, too: then on this suite's Node.
const launcher = oldNode?.path ?? process.execPath;

wrapper('runs the program on the pinned Node 24, its bin first on PATH, and exits with its exit code', async () => {
  const ran = await runCommand(launcher, [WRAPPER, '-e', 'console.log(process.version, process.env.PATH.split(":")[0]); process.exitCode = 7']);
  assert.equal(ran, { code: 7, stdout: `v${PINNED_NODE_VERSIONS['24']} ${dirname(NODE_24)}\n`, stderr: '' });
});

wrapper('a program ended by a signal: exit code 128 + its number, as a shell says it', async () => {
  const ran = await runCommand(launcher, [WRAPPER, '-e', "process.kill(process.pid, 'SIGKILL')"]);
  assert.is(ran.code, 128 + 9);
});

wrapper('SIGTERM and SIGINT sent to the script alone reach the program, once each', async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const started = start(launcher, [WRAPPER, '-e', COUNTING_PROGRAM], { detached: true });
    let programPid: number | undefined;
    try {
      programPid = (await started.ready).pid;
      started.child.kill(signal);
      assert.equal(await started.exited, { code: 11, signal: null }, `${signal}: ${started.output()}`);
    } finally {
      await stopAll(started, programPid);
    }
  }
});

wrapper('a Ctrl-C at a terminal reaches the program once, not once more through the script', async () => {
  // script(1) runs the command on a pseudo-terminal of its own; a ^C written to it is the terminal's Ctrl-C, sent to
  // the terminal's foreground process group: the script and the program together. `exec`: the shell script(1) runs the
  // command with is $SHELL or /bin/sh, and dash, waiting on its child, takes the ^C as its own death (exit 130).
  const command = 'exec ' + [launcher, WRAPPER, '-e', COUNTING_PROGRAM].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  const started = start('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], { stdin: 'pipe' });
  let programPid: number | undefined;
  try {
    const ready = await started.ready;
    programPid = ready.pid;
    assert.is(ready.version, `v${PINNED_NODE_VERSIONS['24']}`);
    started.child.stdin!.write('\x03');
    assert.equal(await started.exited, { code: 11, signal: null }, started.output());
  } finally {
    await stopAll(started, programPid);
  }
});

wrapper.run();

const sources = suite('flowgate from the sources on an unsupported Node');

whenUnsupportedNodeExpected(sources, oldNode)('node --import tsx composition/cli/main.ts on Node 20: one line naming the Node it needs, exit 2', async () => {
  assert.ok(oldNode, 'no Node older than 22.13 on this machine (neither on PATH outside ~/.cache/flowgate nor /usr/local/bin/node)');
  for (const args of [['serve'], ['--version'], ['status', 'some-run']]) {
    const ran = await runCommand(oldNode.path, [...CLI, ...args]);
    assert.equal(ran, { code: 2, stdout: '', stderr: `flowgate needs Node.js 22.13 or later; this is Node.js ${oldNode.version}\n` }, args.join(' '));
  }
});

sources.run();
