#!/usr/bin/env node
// `node scripts/onSupportedNode.mjs <node arguments>`: runs node with those arguments on the Node 24 release the
// repository pins (scripts/infra/nodeRuntime.mjs; installed from the npm registry into ~/.cache/flowgate/node on first
// use), whatever Node runs this script. The machines ship Node 20, which flowgate does not support; package.json's
// scripts (start, worker, dev, dev:memory, bench, test, test:long,
// test:unit, test:contract) go through here so every run uses the same Node.
// Written for Node 20: it must run there to fetch the newer one.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, dirname } from 'node:path';
import { ensureNodeRuntime, REPOSITORY_NODE_MAJOR } from './infra/nodeRuntime.mjs';

/**
 * Whether this process is in its terminal's foreground process group. A Ctrl-C there reaches every process of the
 * group, the program this script started included, so forwarding it too would make the program see two SIGINTs (and
 * the second cuts a graceful stop short). The price: a SIGINT sent to this process alone while it is in the
 * foreground is not passed on (SIGTERM always is). Linux's /proc/self/stat gives the process group (field 5) and the
 * terminal's foreground group (field 8, -1 without a terminal); the fields after the command name, which may hold
 * spaces, start at the state (field 3).
 */
function inTerminalForeground() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const processGroup = Number(fields[2]);
    const foregroundGroup = Number(fields[5]);
    return foregroundGroup > 0 && foregroundGroup === processGroup;
  } catch {
    return false;
  }
}

let node;
try {
  node = await ensureNodeRuntime(REPOSITORY_NODE_MAJOR);
} catch (error) {
  process.stderr.write(`could not get Node ${REPOSITORY_NODE_MAJOR}: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}

// Listening before the program starts: on a loaded machine this process can be paused between the spawn and its next
// line while the program starts and is sent a signal, which would then end this process instead of reaching the
// program. A signal handled here is acted on in a later turn, once `child` is set.
/** @type {import('node:child_process').ChildProcess} */
let child;
process.on('SIGTERM', () => child.kill('SIGTERM'));
process.on('SIGINT', () => {
  if (!inTerminalForeground()) child.kill('SIGINT');
});

// Its bin directory first on PATH: what the program starts by name (node, npm, npx, a package's bin) runs on it too.
child = spawn(node, process.argv.slice(2), {
  stdio: 'inherit',
  env: { ...process.env, PATH: [dirname(node), process.env.PATH].filter(Boolean).join(delimiter) },
});

child.once('error', (error) => {
  process.stderr.write(`could not start Node ${REPOSITORY_NODE_MAJOR} (${node}): ${error.message}\n`);
  process.exit(1);
});
// The program's exit code, or the shell's 128 + n for a program ended by signal n.
child.once('exit', (code, signal) => {
  process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
});
