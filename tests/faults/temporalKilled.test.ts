// Fault: Temporal killed (SIGKILL, as a crash) while 200 POST /workflow starts are in flight, then restarted on the
// same port from the same SQLite file. The API and the worker run as their own processes, as in production. This file
// starts its own dev server: the runner's shared one must not be killed under the other suites. A second test reuses
// the set-up for the Temporal half of the SIGTERM promise (shutdown.test.ts proves the rest on the embedded engine).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { eventually } from '../support/eventually.js';
import { call } from '../support/http.js';
import { startApiProcess, startWorkerProcess, waitForOnlineWorkers, type NodeProcess } from './processes.js';

const STARTS = 200;
/** Kill Temporal once this many starts have answered: the rest are still in flight. */
const KILL_AFTER_ANSWERS = 20;
const CATALOG = 'main';

interface Answer {
  index: number;
  workflowId: string;
  status?: number;
  body?: any;
  headers?: Record<string, unknown>;
  error?: string;
}

interface Context {
  /** uvu swallows an error thrown by a before hook (the suite then reports 0 of 1 and no failure): kept for the test. */
  setupError?: unknown;
  dir: string;
  temporalEnv: Record<string, string>;
  temporal?: TemporalDevServer;
  worker?: NodeProcess;
  api?: NodeProcess & { url: string };
  agent?: Agent;
  /** Stopped by the after hook too: a test that fails half-way must not leave it polling (it keeps the process alive). */
  readiness?: ReturnType<typeof sampleReadiness>;
}

const outage = suite<Context>('Temporal killed during 200 in-flight starts');

outage.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-fault-temporal-'));
  try {
    await setUp(context);
  } catch (error) {
    context.setupError = error;
  }
});

async function setUp(context: Context): Promise<void> {
  context.temporal = await startTemporalDevServer({ dbFilename: join(context.dir, 'temporal.db'), log: () => {} });
  const temporalEnv = (context.temporalEnv = { TEMPORAL_ADDRESS: context.temporal.address, TEMPORAL_NAMESPACE: context.temporal.namespace, TRACE_DIR: join(context.dir, 'traces') });
  context.worker = startWorkerProcess({ ...temporalEnv, WORKER_CATALOG: CATALOG, LOG_LEVEL: 'warn' });
  context.api = await startApiProcess({ ...temporalEnv, ENGINE: 'temporal', DEFAULT_CATALOG: CATALOG, SHUTDOWN_GRACE_MS: '3000' });
  await waitForOnlineWorkers(context.temporal, CATALOG, 1, [context.worker]);
  context.agent = new Agent({ connections: STARTS + 20 });
}

outage.after(async (context) => {
  await context.readiness?.stop();
  await context.api?.stop('SIGTERM', 5_000);
  await context.worker?.stop('SIGTERM', 5_000);
  await context.temporal?.stop();
  await context.agent?.close();
  await rm(context.dir, { recursive: true, force: true });
});

/** /ready sampled every 100 ms for the whole test, so the test can show it followed the outage. */
function sampleReadiness(url: string, agent: Agent) {
  const samples: { at: number; status: number }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const status = await request(`${url}/ready`, { dispatcher: agent }).then(
        async (response) => {
          await response.body.dump();
          return response.statusCode;
        },
        () => 0,
      );
      samples.push({ at: Date.now(), status });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

outage('every 2xx start exists after the restart, the others got a named 503, /ready followed, the API never crashed', async (context) => {
  if (context.setupError) throw context.setupError;
  const { temporal, api, worker, agent } = context as Required<Context>;
  const client = { baseUrl: api.url };
  // The catalog is published and the API can start runs.
  const warmUp = await call(client, 'POST', '/workflow', { json: { workflowName: 'nap', input: { ms: 0 } } });
  assert.is(warmUp.status, 200, warmUp.text);

  const readiness = (context.readiness = sampleReadiness(api.url, agent));
  let answered = 0;
  let killed: Promise<void> | undefined;
  let killedAt = 0;
  const starts: Promise<Answer>[] = Array.from({ length: STARTS }, (_, index) => {
    const workflowId = `killed-${index}`;
    return request(`${api.url}/workflow`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'nap', workflowId, input: { ms: 0 } }),
    })
      .then(
        async (response): Promise<Answer> => ({ index, workflowId, status: response.statusCode, headers: response.headers, body: await response.body.json() }),
        (error: unknown): Answer => ({ index, workflowId, error: String(error) }),
      )
      .finally(() => {
        answered += 1;
        if (answered === KILL_AFTER_ANSWERS) {
          killedAt = Date.now();
          killed = temporal.kill('SIGKILL');
        }
      });
  });
  const answers = await Promise.all(starts);
  await killed;
  assert.ok(killedAt > 0, 'Temporal was killed while starts were in flight');

  // While Temporal is down: /ready says so (within its 2 s bound), and a start is a clear 503.
  const down = await call(client, 'GET', '/ready');
  assert.is(down.status, 503);
  assert.is(down.body.status, 'unavailable');
  const refused = await call(client, 'POST', '/workflow', { json: { workflowName: 'nap', input: { ms: 0 } } });
  assert.is(refused.status, 503, refused.text);

  await temporal.start();
  await eventually('/ready to recover after the restart', async () => (await call(client, 'GET', '/ready')).status === 200, { timeoutMs: 60_000, intervalMs: 250 });
  // The sampler, too, has seen the recovery before it stops (its last sample is asserted below).
  await eventually('the readiness sampler to see the recovery', () => readiness.samples.at(-1)?.status === 200);
  await readiness.stop();

  // Every start got an HTTP answer: the API never dropped a connection.
  assert.equal(answers.filter((answer) => answer.error).map((answer) => `${answer.workflowId}: ${answer.error}`), []);
  const accepted = answers.filter((answer) => answer.status! >= 200 && answer.status! < 300);
  const refusedStarts = answers.filter((answer) => !(answer.status! >= 200 && answer.status! < 300));
  assert.ok(accepted.length >= KILL_AFTER_ANSWERS, `${accepted.length} starts accepted`);
  assert.ok(refusedStarts.length > 0, 'the kill hit starts in flight');

  const refusedNames = [...new Set(refusedStarts.map((answer) => `${answer.status} ${answer.body?.error}`))];
  process.stdout.write(`\n  ${accepted.length} starts accepted, ${refusedStarts.length} refused (${refusedNames.join(', ')}); Temporal killed after ${KILL_AFTER_ANSWERS} answers\n`);

  // Every refusal is a clear, named 503 with Retry-After, and leaks nothing of the engine.
  for (const answer of refusedStarts) {
    assert.is(answer.status, 503, `${answer.workflowId}: ${answer.status} ${JSON.stringify(answer.body)}`);
    assert.ok(['EngineUnavailableError', 'CatalogNotAvailableError'].includes(answer.body.error), JSON.stringify(answer.body));
    assert.ok(Number(answer.headers!['retry-after']) >= 1, `${answer.workflowId}: Retry-After`);
    assert.not.match(answer.body.message, /grpc|ECONNREFUSED|14 UNAVAILABLE|127\.0\.0\.1/i);
  }

  // Every accepted start exists after the restart, as the same run.
  for (const answer of accepted) {
    const status = await call(client, 'GET', `/workflow/${answer.workflowId}/status`);
    assert.is(status.status, 200, `${answer.workflowId} accepted (run ${answer.body.runId}) but now ${status.status} ${status.text}`);
    assert.is(status.body.runId, answer.body.runId);
  }

  // A refused start may still have reached Temporal before the kill (its answer was what got lost): not a broken
  // promise, but worth knowing, so it is counted.
  let startedAnyway = 0;
  for (const answer of refusedStarts) {
    if ((await call(client, 'GET', `/workflow/${answer.workflowId}/status`)).status === 200) startedAnyway += 1;
  }
  process.stdout.write(`  ${startedAnyway} of the refused starts exist all the same\n`);

  // /ready followed the outage: ready before the kill, unavailable during it, ready again at the end.
  const statuses = readiness.samples.map((sample) => sample.status);
  assert.ok(!statuses.includes(0), 'every /ready probe was answered');
  assert.is(readiness.samples.filter((sample) => sample.at < killedAt)[0]?.status, 200);
  assert.ok(readiness.samples.some((sample) => sample.at > killedAt && sample.status === 503), '503 during the outage');
  assert.is(statuses.at(-1), 200);

  // The processes lived through it, and the worker runs what was accepted.
  assert.ok(api.isRunning(), `the API process died:\n${api.stderr()}`);
  assert.ok(worker.isRunning(), `the worker process died:\n${worker.stderr()}`);
  for (const answer of accepted) {
    let last = '';
    await eventually(
      () => `${answer.workflowId} to complete after the restart (last: ${last})`,
      async () => {
        const status = await call(client, 'GET', `/workflow/${answer.workflowId}/status`);
        last = status.text;
        return status.body.status === 'completed';
      },
      { timeoutMs: 60_000 },
    );
  }
  assert.is((await call(client, 'GET', '/health')).status, 200);
});

outage('SIGTERM with run-and-wait calls in flight: 408 before the exit, and on Temporal the runs go on, readable through the next API process', async (context) => {
  if (context.setupError) throw context.setupError;
  const { api, agent } = context as Required<Context>;
  const calls = Array.from({ length: 10 }, (_, index) =>
    request(`${api.url}/workflow/run`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'nap', workflowId: `sigterm-${index}`, input: { ms: 8_000 }, timeout: 60 }),
    }).then(async (response) => ({ status: response.statusCode, body: (await response.body.json()) as any })),
  );
  await eventually(
    'the 10 runs to start',
    async () => {
      const running = await call({ baseUrl: api.url }, 'GET', '/workflow/runs?workflowName=nap&status=running&limit=100');
      assert.is(running.status, 200, running.text);
      return running.body.runs.length >= 10;
    },
    { intervalMs: 100 },
  );
  const exit = api.stop('SIGTERM');
  const answers = await Promise.all(calls);
  assert.is((await exit).code, 0);
  for (const answer of answers) {
    assert.is(answer.status, 408, JSON.stringify(answer.body));
    assert.is(answer.body.error, 'WorkflowExecutionTimedOutError');
    assert.match(answer.body.message, /shutting down/);
  }
  // The next API process (a restart, or another replica) reads each run's result: completed, so never cancelled.
  context.api = await startApiProcess({ ...context.temporalEnv, ENGINE: 'temporal', DEFAULT_CATALOG: CATALOG });
  const next = { baseUrl: context.api.url };
  for (const answer of answers) {
    const result = await waitForResult(next, answer.body.workflowId);
    assert.is(result.status, 'completed');
    assert.equal(result.output, { sleptMs: 8_000 });
  }
});

async function waitForResult(api: { baseUrl: string }, workflowId: string): Promise<any> {
  let last = '';
  return eventually(
    () => `the result of ${workflowId} (last answer: ${last})`,
    async () => {
      const result = await call(api, 'GET', `/workflow/${workflowId}/result`);
      last = `${result.status} ${result.text}`;
      return result.status === 200 && result.body;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}

outage.run();
