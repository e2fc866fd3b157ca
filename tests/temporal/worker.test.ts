// The fixture workflows (tests/fixtures/workflows/basic.ts), unchanged, on a real Temporal dev server through a
// flowgate worker, observed with @temporalio/client directly (no flowgate client adapter involved).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { createWorker, type FlowgateWorker } from '../../composition/worker.js';
import { bundleCatalog } from '../../adapters/temporal/worker/bundle.js';
import { CATALOG_MEMO_KEY, FEEDBACK_SIGNAL, catalogWorkflowId, type CatalogMemo } from '../../adapters/temporal/protocol.js';
import { traceRelativePath } from '../../core/trace/traceKey.js';
import type { TraceRecord } from '../../core/domain/trace.js';
import { testWorkerParts } from '../support/workerParts.js';
import { eventually } from '../support/eventually.js';

const CATALOG = 'worker-test';
const MAX_RESULT_BYTES = 1024 * 1024;
const BASIC_WORKFLOWS = fileURLToPath(new URL('../fixtures/workflows/basic.ts', import.meta.url));

interface Context {
  server: TemporalDevServer;
  worker: FlowgateWorker;
  running: Promise<void>;
  connection: Connection;
  client: Client;
  traceDir: string;
  hooks: Server;
  hookCalls: { headers: IncomingMessage['headers']; body: unknown }[];
  hookUrl: string;
}

const worker = suite<Context>('Temporal worker');
let ids = 0;
const uniqueId = (prefix: string): string => `${prefix}-${Date.now()}-${(ids += 1)}`;

worker.before(async (context) => {
  try {
    // The SDK logs every failed workflow at WARN; these tests fail workflows on purpose.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // Another suite in this process installed the runtime already.
  }
  context.server = await startTemporalDevServer({ cliPath: await ensureTemporalCli(), log: () => {} });
  context.traceDir = await mkdtemp(join(tmpdir(), 'flowgate-worker-traces-'));
  context.hookCalls = [];
  context.hooks = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      context.hookCalls.push({ headers: request.headers, body: JSON.parse(body) });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => context.hooks.listen(0, '127.0.0.1', resolve));
  context.hookUrl = `http://127.0.0.1:${(context.hooks.address() as { port: number }).port}/hook`;
  const bundle = await bundleCatalog({ workflowModules: [BASIC_WORKFLOWS], maxResultBytes: MAX_RESULT_BYTES });
  context.worker = await createWorker({
    temporal: { address: context.server.address, maxMessageBytes: MAX_RESULT_BYTES },
    namespace: context.server.namespace,
    catalog: CATALOG,
    bundle,
    maxResultBytes: MAX_RESULT_BYTES,
    // The webhook target is on loopback, which outbound calls refuse unless the allow-list opens it.
    ...(await testWorkerParts(
      { TRACE_DIR: context.traceDir, OUTBOUND_ALLOWLIST: '127.0.0.1' },
      { info: () => {}, warn: () => {}, error: (message, fields) => console.error(message, fields) },
    )),
  });
  context.running = context.worker.run();
  await context.worker.waitUntilPublished();
  context.connection = await Connection.connect({ address: context.server.address });
  context.client = new Client({ connection: context.connection, namespace: context.server.namespace });
});

worker.after(async (context) => {
  await context.worker?.shutdown();
  await context.running?.catch(() => {});
  await context.connection?.close();
  await new Promise((resolve) => context.hooks?.close(resolve));
  await context.server?.stop();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

const start = (context: Context, type: string, input: unknown, workflowId = uniqueId(type)) =>
  context.client.workflow.start(type, { taskQueue: CATALOG, workflowId, args: [input] });

async function failureOf(promise: Promise<unknown>): Promise<WorkflowFailedError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorkflowFailedError) return error;
    throw error;
  }
  throw new Error('the workflow did not fail');
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

async function events(handle: WorkflowHandle): Promise<HistoryEvent[]> {
  return (await handle.fetchHistory()).events ?? [];
}

const activityTypes = async (handle: WorkflowHandle) =>
  (await events(handle)).flatMap((event) => (event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityType?.name] : []));

/** `eventually`, for a truthy answer, asking every 100 ms. */
function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  return eventually(what, async () => (await probe()) || undefined, { timeoutMs, intervalMs: 100 });
}

async function traceOf(context: Context, handle: WorkflowHandle): Promise<TraceRecord> {
  const description = await handle.describe();
  const path = join(context.traceDir, traceRelativePath({ workflowName: description.type, workflowId: handle.workflowId, runId: description.runId, startedAt: description.startTime }));
  return JSON.parse(await readFile(path, 'utf8')) as TraceRecord;
}

worker('echo completes through its step, and its trace is written at the path of its start time', async (context) => {
  const handle = await start(context, 'echo', { message: 'hello' });
  assert.equal(await handle.result(), { message: 'hello' });
  assert.equal(await activityTypes(handle), ['echo#echo_step']);
  const trace = await traceOf(context, handle);
  assert.equal(trace.input, { message: 'hello' });
  assert.equal(trace.output, { message: 'hello' });
  assert.is(trace.steps.length, 1);
  assert.equal({ ...trace.steps[0], startedAt: undefined, endedAt: undefined }, {
    name: 'echo_step', kind: 'step', input: { message: 'hello' }, output: { message: 'hello' }, error: null, attempt: 1, startedAt: undefined, endedAt: undefined,
  });
});

worker('arithmetic schedules its two steps as <workflow>#<step> activities', async (context) => {
  const handle = await start(context, 'arithmetic', { n: 4 });
  assert.equal(await handle.result(), { result: 10 });
  assert.equal(await activityTypes(handle), ['arithmetic#add_one', 'arithmetic#double']);
});

worker('a failing step fails the run at once with the original error name and the activity type', async (context) => {
  const handle = await start(context, 'fails_in_step', { reason: 'too expensive' });
  const failure = await failureOf(handle.result());
  assert.instance(failure.cause, ApplicationFailure);
  const cause = failure.cause as ApplicationFailure;
  assert.is(cause.type, 'InvoiceRejectedError');
  assert.is(cause.nonRetryable, true);
  const detail = (cause.details?.[0] as { flowgateFailure: Record<string, unknown> }).flowgateFailure;
  assert.is(detail.name, 'InvoiceRejectedError');
  assert.is(detail.activityType, 'fails_in_step#reject_invoice');
  assert.is(detail.message, 'invoice rejected: too expensive');
  assert.is((await handle.describe()).status.name, 'FAILED');
});

worker('errors of the workflow function and bad input fail the run instead of retrying it; an unknown type waits for a worker that serves it', async (context) => {
  const thrown = await failureOf((await start(context, 'fails_in_workflow', {})).result());
  assert.is((thrown.cause as ApplicationFailure).type, 'RangeError');
  const invalid = await failureOf((await start(context, 'echo', { message: 42 })).result());
  assert.is((invalid.cause as ApplicationFailure).type, 'ValidationError');
  assert.match((invalid.cause as ApplicationFailure).message, /Invalid input for workflow echo/);
  // Only its workflow task fails (a newer worker of the queue may serve it: tests/temporal/rollingDeploy.test.ts).
  const unknown = await start(context, 'no_such_workflow', {});
  const taskFailure = await eventually('the unknown type to fail its workflow task', async () =>
    (await events(unknown)).find((event) => event.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure?.message ?? undefined,
  );
  assert.match(taskFailure, /^Workflow type "no_such_workflow" is not served by this worker of catalog "[^"]+" \(it serves: /);
  assert.is((await unknown.describe()).status.name, 'RUNNING');
  await unknown.terminate('test done');
});

worker('sleeper sleeps on a durable timer', async (context) => {
  const handle = await start(context, 'sleeper', { ms: 200 });
  assert.equal(await handle.result(), { slept: 200 });
  assert.ok((await events(handle)).some((event) => event.timerFiredEventAttributes));
});

worker('awaits_feedback takes a reply sent with the start (buffered before the wait)', async (context) => {
  const handle = await context.client.workflow.signalWithStart('awaits_feedback', {
    taskQueue: CATALOG,
    workflowId: uniqueId('early-reply'),
    args: [{}],
    signal: FEEDBACK_SIGNAL,
    signalArgs: [{ approved: true }],
  });
  assert.equal(await handle.result(), { reply: { approved: true } });
});

worker('awaits_feedback with a url POSTs the call through the webhook step, then takes a later reply', async (context) => {
  const handle = await start(context, 'awaits_feedback', { url: context.hookUrl });
  const call = await waitFor('the webhook call', async () => context.hookCalls.find((hook) => (hook.body as { workflowId: string }).workflowId === handle.workflowId));
  const runId = handle.firstExecutionRunId;
  assert.equal(call.body, { workflowId: handle.workflowId, runId, workflowName: 'awaits_feedback', payload: { question: 'approve?' } });
  assert.is(call.headers['idempotency-key'], `${handle.workflowId}:${runId}:webhook-1`);
  await handle.signal(FEEDBACK_SIGNAL, { approved: false });
  assert.equal(await handle.result(), { reply: { approved: false } });
  assert.equal(await activityTypes(handle), ['awaits_feedback#webhook']);
});

worker('a webhook wait with a time limit fails with WebhookTimeoutError', async (context) => {
  const failure = await failureOf((await start(context, 'awaits_feedback', { timeoutMs: 300 })).result());
  assert.is((failure.cause as ApplicationFailure).type, 'WebhookTimeoutError');
});

worker('a stopped cleans_up_on_stop runs its clean-up step and ends CANCELED', async (context) => {
  const handle = await start(context, 'cleans_up_on_stop', {});
  await waitFor('the timer', async () => (await events(handle)).some((event) => event.timerStartedEventAttributes));
  await handle.cancel();
  const failure = await failureOf(handle.result());
  assert.instance(failure.cause, CancelledFailure);
  assert.is((await handle.describe()).status.name, 'CANCELLED');
  assert.ok((await activityTypes(handle)).includes('cleans_up_on_stop#clean_up'));
  const trace = await traceOf(context, handle);
  assert.equal(trace.steps.map((step) => [step.name, step.output]), [['clean_up', { cleaned: 'scratch space' }]]);
  assert.equal(trace.error, { name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' });
});

worker('countdown continues as new until it reaches zero', async (context) => {
  const handle = await start(context, 'countdown', { n: 2 });
  assert.equal(await handle.result(), { done: true });
  const first = await context.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
  assert.is(first.status.name, 'CONTINUED_AS_NEW');
  const last = await handle.describe();
  assert.is.not(last.runId, handle.firstExecutionRunId);
  assert.is(last.status.name, 'COMPLETED');
});

worker('parent runs arithmetic as a child workflow with a stable default id', async (context) => {
  const handle = await start(context, 'parent', { n: 1 });
  assert.equal(await handle.result(), { child: { result: 4 } });
  const child = await context.client.workflow.getHandle(`${handle.workflowId}/arithmetic-1`).describe();
  assert.is(child.status.name, 'COMPLETED');
  assert.is(child.parentExecution?.workflowId, handle.workflowId);
  assert.is(child.taskQueue, CATALOG);
});

worker('the catalog memo publishes the workflows with JSON Schemas; onlineWorkers empties after shutdown', async (context) => {
  const catalog = context.client.workflow.getHandle(catalogWorkflowId(CATALOG));
  const memoOf = async () => (await catalog.describe()).memo?.[CATALOG_MEMO_KEY] as CatalogMemo;
  const memo = await memoOf();
  assert.is(memo.catalog, CATALOG);
  assert.equal(memo.onlineWorkers, [context.worker.identity]);
  const names = memo.workflows.map((workflow) => workflow.name).sort();
  assert.equal(names, ['arithmetic', 'awaits_feedback', 'calls_missing_child', 'cleans_up_on_stop', 'countdown', 'echo', 'fails_in_step', 'fails_in_workflow', 'parent', 'sleeper', 'starts_child_twice']);
  const echo = memo.workflows.find((workflow) => workflow.name === 'echo')!;
  assert.is(echo.description, 'Returns its input through one step');
  assert.equal((echo.inputSchema as { properties: unknown }).properties, { message: { type: 'string' } });
  assert.is((echo.inputSchema as { additionalProperties: unknown }).additionalProperties, false);

  await context.worker.shutdown();
  await context.running;
  assert.equal((await memoOf()).onlineWorkers, []);
  assert.is((await catalog.describe()).status.name, 'RUNNING', 'the catalog stays known while no worker serves it');
});

worker.run();
