#!/usr/bin/env node
// `npm run dev`: a Temporal dev server, a worker serving the example workflows and the API on it, from the TypeScript
// sources. Ctrl-C stops all three. Needs the Temporal CLI (found or built as scripts/infra/temporalCli.mjs describes).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureTemporalCli, startTemporalDevServer } from './infra/index.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const log = (line) => process.stderr.write(`[dev] ${line}\n`);

const cliPath = await ensureTemporalCli({ log });
const temporal = await startTemporalDevServer({ cliPath, log });
log(`Temporal dev server on ${temporal.address} (namespace ${temporal.namespace})`);
const env = { ...process.env, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace };
const children = [
  spawn(process.execPath, ['--import', 'tsx', 'composition/workerMain.ts'], { cwd: root, env, stdio: 'inherit' }),
  spawn(process.execPath, ['--import', 'tsx', 'composition/main.ts'], { cwd: root, env, stdio: 'inherit' }),
];

let stopping = false;
async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  log('stopping the API, the worker and the Temporal dev server');
  await Promise.all(
    children.map((child) => (child.exitCode !== null ? undefined : new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); }))),
  );
  await temporal.stop();
  process.exit(code);
}
process.once('SIGINT', () => void stopAll(0));
process.once('SIGTERM', () => void stopAll(0));
for (const child of children) child.once('exit', (code) => void stopAll(code ?? 1));
