#!/usr/bin/env node
// The `flowgate` executable. On a Node older than the package supports it says so in one line and exits, before
// anything else loads: the command's modules may import what such a Node lacks (node:sqlite, say), which would end the
// process with a stack trace instead. So this file imports only the check, and the command itself dynamically.
import { fileURLToPath } from 'node:url';
import { EXIT_USAGE } from './exitCodes.js';
import { unsupportedNodeMessage } from './nodeVersion.js';

const unsupported = unsupportedNodeMessage(process.versions.node);
if (unsupported === undefined) {
  const { runCliProcess } = await import('./cliProcess.js');
  await runCliProcess(fileURLToPath(import.meta.url));
} else {
  process.stderr.write(`${unsupported}\n`);
  process.exitCode = EXIT_USAGE;
}
