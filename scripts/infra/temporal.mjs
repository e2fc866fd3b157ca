#!/usr/bin/env node
// Runs a Temporal dev server for local development until Ctrl-C:
//   node scripts/infra/temporal.mjs [--db-filename FILE] [--ui] [--large-messages]
// stdout carries only `KEY=value` lines (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE) so a wrapper can read them;
// progress and diagnostics go to stderr.
import { parseArgs } from 'node:util';
import { startTemporalDevServer } from './temporalServer.mjs';

const { values } = parseArgs({
  options: {
    'db-filename': { type: 'string' },
    ui: { type: 'boolean', default: false },
    'large-messages': { type: 'boolean', default: false },
  },
});

/** @param {string} line */
const log = (line) => process.stderr.write(`[temporal] ${line}\n`);

const server = await startTemporalDevServer({
  log,
  dbFilename: values['db-filename'],
  ui: values.ui,
  largeMessages: values['large-messages'],
  onUnexpectedExit: (how, output) => {
    log(`the Temporal dev server stopped unexpectedly (${how}):\n${output.trim()}`);
    process.exit(1);
  },
});

process.stdout.write(`TEMPORAL_ADDRESS=${server.address}\nTEMPORAL_NAMESPACE=${server.namespace}\n`);
if (server.uiPort) log(`web UI: http://127.0.0.1:${server.uiPort}`);
log('press Ctrl-C to stop');

let stopping = false;
/** @param {NodeJS.Signals} signal */
const shutDown = async (signal) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping the Temporal dev server`);
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', shutDown);
process.on('SIGTERM', shutDown);
