// `flowgate worker`: its configuration, and the process itself on a real Temporal dev server (publish, serve the
// example workflows, SIGTERM → goodbye to the catalog → exit 0).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type AddressInfo } from 'node:net';
import { request } from 'undici';
import { Client, Connection } from '@temporalio/client';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { ConfigError } from '../../composition/config.js';
import { parseWorkerConfig } from '../../composition/workerConfig.js';
import { CATALOG_MEMO_KEY, catalogWorkflowId, type CatalogMemo } from '../../adapters/temporal/protocol.js';
import { parseExposition } from '../support/prometheus.js';
import { eventually } from '../support/eventually.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'composition', 'cli', 'main.ts');

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseWorkerConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function startWorkerProcess(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'worker', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, exited };
}

const config = suite('worker configuration');

config('TEMPORAL_ADDRESS is required; every problem is one line', () => {
  assert.equal(problemsOf({}), ['TEMPORAL_ADDRESS: is required (host:port of the Temporal frontend)']);
  const problems = problemsOf({ TEMPORAL_ADDRESS: 'localhost:7233', TEMPORAL_TLS: 'sometimes', MAX_RESULT_BYTES: 'lots', WORKER_CATALOG: '' });
  assert.is(problems.length, 3);
  assert.ok(problems.some((line) => line.startsWith('TEMPORAL_TLS:')));
  assert.ok(problems.some((line) => line.startsWith('MAX_RESULT_BYTES:')));
  assert.ok(problems.some((line) => line.startsWith('WORKER_CATALOG:')));
});

config('defaults: namespace "default", catalog from DEFAULT_CATALOG or "main", ./workflows', () => {
  const parsed = parseWorkerConfig({ TEMPORAL_ADDRESS: 'localhost:7233' });
  assert.equal(parsed.temporal, { address: 'localhost:7233', namespace: 'default', apiKey: undefined, tls: undefined, transport: 'http2' });
  assert.is(parsed.catalog, 'main');
  assert.is(parsed.workflowsDir, './workflows');
  assert.is(parsed.traceDir, './traces');
  assert.is(parsed.maxResultBytes, 33_554_432);
  assert.is(parseWorkerConfig({ TEMPORAL_ADDRESS: 'a:1', DEFAULT_CATALOG: 'shared' }).catalog, 'shared');
  assert.is(parseWorkerConfig({ TEMPORAL_ADDRESS: 'a:1', DEFAULT_CATALOG: 'shared', WORKER_CATALOG: 'own' }).catalog, 'own');
  const secured = parseWorkerConfig({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'off' });
  assert.equal([secured.temporal.apiKey, secured.temporal.tls, secured.webhookSigning], ['k', false, undefined]);
});

config('the process refuses a bad environment with exit code 2 and no stack', async () => {
  const { exited } = startWorkerProcess({ MAX_RESULT_BYTES: '-1' });
  const exit = await exited;
  assert.is(exit.code, 2);
  assert.match(exit.stderr, /TEMPORAL_ADDRESS: is required/);
  assert.match(exit.stderr, /MAX_RESULT_BYTES: /);
  assert.not.match(exit.stderr, /\n\s+at /);
});

config.run();

const main = suite<{ server: TemporalDevServer; traceDir: string }>('flowgate worker');

main.before(async (context) => {
  context.server = await startTemporalDevServer({ cliPath: await ensureTemporalCli(), log: () => {} });
  context.traceDir = await mkdtemp(join(tmpdir(), 'flowgate-worker-main-'));
});

main.after(async (context) => {
  await context.server?.stop();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

/** A port nothing listens on now (Temporal's metrics exporter needs a fixed one). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

main('serves the example workflows, its own and Temporal\'s worker metrics in one scrape on METRICS_PORT, and on SIGTERM leaves the catalog and exits 0', async ({ server, traceDir }) => {
  const metricsPort = await freePort();
  const { child, exited } = startWorkerProcess({ TEMPORAL_ADDRESS: server.address, TRACE_DIR: traceDir, LOG_LEVEL: 'warn', METRICS_PORT: String(metricsPort) }, [
    '--workflows',
    'examples/workflows',
    '--catalog',
    'examples',
  ]);
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const catalog = client.workflow.getHandle(catalogWorkflowId('examples'));
    const memo = async (): Promise<CatalogMemo | undefined> =>
      catalog.describe().then((description) => description.memo?.[CATALOG_MEMO_KEY] as CatalogMemo, () => undefined);
    await eventually(
      'the worker to publish its catalog',
      async () => {
        if (child.exitCode !== null) throw new Error(`the worker exited before it published:\n${(await exited).stderr}`);
        return (await memo())?.onlineWorkers.length;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal((await memo())!.workflows.map((workflow) => workflow.name).sort(), ['approval', 'countdown', 'digest', 'nap', 'summarise', 'unreliable']);
    const summary = await client.workflow.execute('summarise', { taskQueue: 'examples', workflowId: `summarise-${Date.now()}`, args: [{ text: 'one two three' }] });
    assert.equal(summary, { summary: 'one two three', wordCount: 3, coverage: 1 });
    // One scrape: flowgate's own worker metrics (the steps it ran), then the SDK's view of its task queue.
    const scrape = await request(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.is(scrape.statusCode, 200);
    assert.match(String(scrape.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = await scrape.body.text();
    const exposition = parseExposition(text);
    assert.is(exposition.types.get('flowgate_step_attempt_duration_seconds'), 'histogram');
    const summariseSteps = exposition.samples.filter(
      (sample) => sample.name === 'flowgate_step_attempt_duration_seconds_count' && sample.labels.workflow === 'summarise' && sample.labels.outcome === 'success',
    );
    assert.ok(summariseSteps.length > 0 && summariseSteps.every((sample) => sample.value >= 1 && !sample.labels.step?.includes('#')), 'the run\'s steps, by step name');
    assert.is(exposition.types.get('flowgate_process_cpu_user_seconds_total'), 'counter', "the worker process's own metrics");
    assert.match(text, /^# (HELP|TYPE) temporal_/m);
    assert.match(text, /^temporal_workflow_completed\{[^}]*task_queue="examples"[^}]*\} [1-9]/m, 'the completed run, by task queue');
    assert.not.match(text, /could not be read/);
    const other = await request(`http://127.0.0.1:${metricsPort}/workflow/list`);
    await other.body.dump();
    assert.is(other.statusCode, 404, 'the metrics port serves nothing else');

    child.kill('SIGTERM');
    const exit = await exited;
    assert.is(exit.code, 0, exit.stderr);
    assert.equal((await memo())!.onlineWorkers, []);
  } finally {
    child.kill('SIGKILL');
    await connection.close();
  }
});

main.run();
