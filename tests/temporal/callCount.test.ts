// What each request costs the API in Temporal gRPC calls, counted on the API's own connection (an interceptor), beside
// the raw @temporalio/client doing the same thing: status is one describe, start one start, run-and-wait the raw
// execute()'s two calls (the worker reports the trace's location on the result, so the closed run is not described).
// Counts, not timings: docs/performance.md has the CPU these calls cost.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { Client, Connection } from '@temporalio/client';
import { createFlowgate, type Flowgate } from '../../composition/embed/index.js';
import { TemporalEngine } from '../../adapters/temporal/index.js';
import { systemClock } from '../../adapters/system/index.js';
import type { Logger } from '../../ports/logger.js';
import { FIXTURE_CATALOGS } from '../support/fixtureCatalogs.js';
import { startTemporalWorkers } from '../support/temporalWorkers.js';
import { countedClient, GrpcCallCounter } from '../support/grpcCalls.js';

interface Context {
  counter: GrpcCallCounter;
  connection: Connection;
  rawCounter: GrpcCallCounter;
  raw: { client: Client; connection: Connection };
  engine: TemporalEngine;
  flowgate: Flowgate;
  server: Server;
  baseUrl: string;
  traceDir: string;
  workers: Awaited<ReturnType<typeof startTemporalWorkers>>;
}

const quiet: Logger = { info() {}, warn() {}, error() {} };
const MAIN = FIXTURE_CATALOGS.find(({ catalog }) => catalog === 'main')!;
const calls = suite<Context>('Temporal gRPC calls per request');

calls.before(async (context) => {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('tests/temporal/callCount.test.ts needs TEMPORAL_ADDRESS');
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  context.traceDir = await mkdtemp(join(tmpdir(), 'flowgate-calls-'));
  const env = { TRACE_DIR: context.traceDir, DEFAULT_CATALOG: 'main', TEMPORAL_MAX_PAYLOAD_BYTES: String(64 * 1024 * 1024) };
  context.workers = await startTemporalWorkers({ traceDir: context.traceDir, logger: quiet, env, catalogs: [MAIN] });
  context.counter = new GrpcCallCounter();
  const counted = await countedClient(address, namespace, context.counter);
  context.connection = counted.connection;
  // A catalog cache longer than the suite: a start reads its catalog from Temporal only when the test says so.
  context.engine = new TemporalEngine({ client: counted.client, namespace, logger: quiet, clock: systemClock, catalogCacheMs: 10 * 60_000 });
  context.flowgate = await createFlowgate({ engine: context.engine, logger: quiet, env });
  context.server = createServer(context.flowgate.nodeHandler);
  await new Promise<void>((resolve) => context.server.listen(0, '127.0.0.1', resolve));
  context.baseUrl = `http://127.0.0.1:${(context.server.address() as AddressInfo).port}`;
  context.rawCounter = new GrpcCallCounter();
  context.raw = await countedClient(address, namespace, context.rawCounter);
});

calls.after(async (context) => {
  if (context.server) await new Promise<void>((resolve) => context.server.close(() => resolve()));
  await context.flowgate?.close();
  await context.engine?.close();
  await context.connection?.close();
  await context.raw?.connection.close();
  await context.workers?.close();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

async function send(context: Context, method: 'GET' | 'POST', path: string, json?: unknown, key?: string): Promise<{ status: number; body: any }> {
  const response = await request(`${context.baseUrl}${path}`, {
    method,
    ...(json === undefined
      ? {}
      : { headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) }, body: JSON.stringify(json) }),
  });
  return { status: response.statusCode, body: await response.body.json() };
}

/** The calls `action` makes on the API's connection, and nothing else. */
async function counted(context: Context, action: () => Promise<unknown>): Promise<Record<string, number>> {
  context.counter.reset();
  await action();
  return context.counter.snapshot();
}

const echoRun = { workflowName: 'echo', input: { message: 'counted' } };

calls('concurrent starts on a cold catalog read it once: one describe of the registry, one per task queue type', async (context) => {
  const made = await counted(context, async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(context, 'POST', '/workflow', echoRun)));
    assert.equal(answers.map(({ status }) => status), Array(10).fill(200));
  });
  assert.equal(made, { DescribeTaskQueue: 2, DescribeWorkflowExecution: 1, StartWorkflowExecution: 10 });
});

calls('the raw client: start() is one call, execute() two (the start and the long poll of the closing event)', async ({ raw, rawCounter }) => {
  const options = { taskQueue: 'main', args: [echoRun.input] };
  rawCounter.reset();
  await raw.client.workflow.start('echo', { ...options, workflowId: `calls-raw-${randomUUID()}` });
  assert.equal(rawCounter.snapshot(), { StartWorkflowExecution: 1 });
  rawCounter.reset();
  await raw.client.workflow.execute('echo', { ...options, workflowId: `calls-raw-${randomUUID()}` });
  assert.equal(rawCounter.snapshot(), { GetWorkflowExecutionHistory: 1, StartWorkflowExecution: 1 });
});

calls('POST /workflow: one start, as the raw client', async (context) => {
  const made = await counted(context, async () => assert.is((await send(context, 'POST', '/workflow', echoRun)).status, 200));
  assert.equal(made, { StartWorkflowExecution: 1 });
});

calls('GET status: one describe, as the raw client', async (context) => {
  const started = await send(context, 'POST', '/workflow', echoRun);
  for (const path of [`/workflow/${started.body.workflowId}/status`, `/workflow/${started.body.workflowId}/runs/${started.body.runId}/status`]) {
    const made = await counted(context, async () => assert.is((await send(context, 'GET', path)).status, 200));
    assert.equal(made, { DescribeWorkflowExecution: 1 }, path);
  }
});

calls('POST /workflow/run: the raw execute()\'s two calls, the trace named from the closing event', async (context) => {
  let answer: { status: number; body: any } | undefined;
  const made = await counted(context, async () => {
    answer = await send(context, 'POST', '/workflow/run', echoRun);
  });
  assert.equal(made, { GetWorkflowExecutionHistory: 1, StartWorkflowExecution: 1 });
  assert.equal([answer!.status, answer!.body.status, answer!.body.output], [200, 'completed', { message: 'counted' }]);
  // The same answer as a read of the closed run (which describes it): the file Temporal's start time names, written.
  const read = await send(context, 'GET', `/workflow/${answer!.body.workflowId}/runs/${answer!.body.runId}/result`);
  assert.equal(answer!.body, read.body);
  assert.ok(answer!.body.trace.local.startsWith(context.traceDir), answer!.body.trace.local);
  assert.ok(existsSync(answer!.body.trace.local), answer!.body.trace.local);
});

calls('POST /workflow/run of a run that fails: the same two calls, the trace location in the failure\'s detail', async (context) => {
  let answer: { status: number; body: any } | undefined;
  const made = await counted(context, async () => {
    answer = await send(context, 'POST', '/workflow/run', { workflowName: 'fails_in_workflow', input: {} });
  });
  assert.equal(made, { GetWorkflowExecutionHistory: 1, StartWorkflowExecution: 1 });
  assert.equal([answer!.status, answer!.body.status, answer!.body.error.name], [200, 'failed', 'RangeError']);
  assert.equal(answer!.body, (await send(context, 'GET', `/workflow/${answer!.body.workflowId}/runs/${answer!.body.runId}/result`)).body);
  assert.ok(existsSync(answer!.body.trace.local), answer!.body.trace.local);
});

calls('GET result with ?wait on an open run: the open run described once, the closed one not again', async (context) => {
  const started = await send(context, 'POST', '/workflow', { workflowName: 'sleeper', input: { ms: 1500 } });
  let answer: { status: number; body: any } | undefined;
  const made = await counted(context, async () => {
    answer = await send(context, 'GET', `/workflow/${started.body.workflowId}/result?wait=30`);
  });
  assert.equal([answer!.status, answer!.body.status, answer!.body.output], [200, 'completed', { slept: 1500 }]);
  // The outcome asked for (the run is open), the open run described for the wait, the closing event's long poll, the input.
  assert.equal(made, { DescribeWorkflowExecution: 2, GetWorkflowExecutionHistory: 2 });
  assert.equal(answer!.body, (await send(context, 'GET', `/workflow/${started.body.workflowId}/result`)).body);
});

calls('with an Idempotency-Key (as flowgate/client sends): a look for the key\'s run before the start, a read-back after', async (context) => {
  const start = await counted(context, async () => assert.is((await send(context, 'POST', '/workflow', echoRun, randomUUID())).status, 200));
  assert.equal(start, { DescribeWorkflowExecution: 2, StartWorkflowExecution: 1 });
  const run = await counted(context, async () => assert.is((await send(context, 'POST', '/workflow/run', echoRun, randomUUID())).status, 200));
  assert.equal(run, { DescribeWorkflowExecution: 2, GetWorkflowExecutionHistory: 1, StartWorkflowExecution: 1 });
});

calls.run();
