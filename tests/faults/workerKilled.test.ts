// Fault: a worker process SIGKILLed while it runs a step, a second worker serving the same catalog (task queue). The
// step's attempt is lost with its process; Temporal times it out (the step's timeoutMs is 4 s), retries it on the
// other worker, and the run completes. Runs on the runner's Temporal dev server (TEMPORAL_ADDRESS), on a catalog of
// its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFlowgateServer, type FlowgateServer } from '../../composition/server.js';
import { call } from '../support/http.js';
import { startWorkerProcess, waitForOnlineWorkers, type NodeProcess } from './processes.js';
import { SLOW_STEP_TIMEOUT_MS } from '../fixtures/faults/steps/slowStep.js';
import { eventually } from '../support/eventually.js';

const WORKFLOWS_DIR = fileURLToPath(new URL('../fixtures/faults/workflows/', import.meta.url));
const STEP_MS = 2_500;
const CATALOG = `faults-${Math.random().toString(36).slice(2, 8)}`;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

interface Context {
  /** uvu swallows an error thrown by a before hook: kept for the test to rethrow. */
  setupError?: unknown;
  dir: string;
  workers: NodeProcess[];
  api?: FlowgateServer;
}

const killed = suite<Context>('a worker killed mid-step');

killed.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-fault-worker-'));
  context.workers = [];
  try {
    const address = process.env.TEMPORAL_ADDRESS;
    if (!address) throw new Error('needs TEMPORAL_ADDRESS (npm test starts a dev server for this suite)');
    const temporal = { address, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' };
    const env = {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      WORKER_CATALOG: CATALOG,
      WORKFLOWS_DIR,
      TRACE_DIR: join(context.dir, 'traces'),
      LOG_LEVEL: 'warn',
    };
    context.workers = [startWorkerProcess(env), startWorkerProcess(env)];
    await waitForOnlineWorkers(temporal, CATALOG, 2, context.workers);
    context.api = await startFlowgateServer({
      env: { ENGINE: 'temporal', ...env, PORT: '0', DEFAULT_CATALOG: CATALOG, SHUTDOWN_GRACE_MS: '1000' },
      logger: quiet,
    });
  } catch (error) {
    context.setupError = error;
  }
});

killed.after(async (context) => {
  await context.api?.close();
  await Promise.all(context.workers.map((worker) => worker.stop('SIGTERM', 5_000)));
  await rm(context.dir, { recursive: true, force: true });
});

async function waitForMarkers(dir: string, count: number, timeoutMs: number): Promise<string[]> {
  let markers: string[] = [];
  return eventually(
    () => `${count} step attempts to start (${markers.length} did)`,
    async () => {
      markers = (await readdir(dir)).sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]));
      return markers.length >= count && markers;
    },
    { timeoutMs, intervalMs: 50 },
  );
}

killed('the step retries on the other worker and the run completes', async (context) => {
  if (context.setupError) throw context.setupError;
  const api = { baseUrl: context.api!.url };
  const markerDir = join(context.dir, 'markers');
  await rm(markerDir, { recursive: true, force: true });
  await import('node:fs/promises').then(({ mkdir }) => mkdir(markerDir));

  const startedAt = Date.now();
  const run = call(api, 'POST', '/workflow/run', {
    json: { workflowName: 'one_slow_step', workflowId: `${CATALOG}-run`, input: { ms: STEP_MS, markerDir }, timeout: 60 },
  });
  const [first] = await waitForMarkers(markerDir, 1, 30_000);
  const victimPid = Number(first!.split('-')[0]);
  const victim = context.workers.find((worker) => worker.pid === victimPid);
  assert.ok(victim, `the step runs in one of the two workers (pid ${victimPid})`);
  // Mid-step: the attempt has started and has seconds left.
  victim!.child.kill('SIGKILL');
  const exit = await victim!.exited;
  assert.is(exit.signal, 'SIGKILL');
  const survivor = context.workers.find((worker) => worker !== victim)!;

  const result = await run;
  const took = Date.now() - startedAt;
  assert.is(result.status, 200, result.text);
  assert.is(result.body.status, 'completed', JSON.stringify(result.body));
  assert.is(result.body.output.pid, survivor.pid, 'the other worker completed the step');
  const markers = await waitForMarkers(markerDir, 2, 1_000);
  assert.equal(markers.map((marker) => Number(marker.split('-')[0])), [victimPid, survivor.pid]);

  // History and trace tell the same: one step, completed on its second attempt.
  const history = await call(api, 'GET', `/workflow/${encodeURIComponent(result.body.workflowId)}/history?pageSize=200`);
  const completed = history.body.events.filter((event: { type: string }) => event.type === 'step_completed');
  assert.is(completed.length, 1);
  assert.is(completed[0].attributes.attempt, 2);
  const [firstAt, retryAt] = markers.map((marker) => Number(marker.split('-')[1]) - startedAt);
  process.stdout.write(
    `\n  attempt 1 at ${firstAt} ms (killed), attempt 2 at ${retryAt} ms, run completed at ${took} ms (step timeout ${SLOW_STEP_TIMEOUT_MS} ms, step ${STEP_MS} ms)\n`,
  );
  assert.ok(survivor.isRunning(), `the surviving worker is still up:\n${survivor.stderr()}`);
});

killed.run();
