// What step swapping and the sandbox do at their edges, on a real Temporal dev server: steps used as values, non-step
// exports, steps the worker cannot swap, retries, child failures, oversized results, and bundles it must refuse.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { testWorkerParts } from '../support/workerParts.js';
import { createWorker, type FlowgateWorker } from '../../composition/worker.js';
import { bundleCatalog } from '../../adapters/temporal/worker/bundle.js';
import { RESULT_TOO_LARGE_ERROR } from '../../adapters/temporal/protocol.js';
import { traceRelativePath } from '../../core/trace/traceKey.js';
import type { TraceRecord } from '../../core/domain/trace.js';

const CATALOG = 'worker-quirks';
const MAX_RESULT_BYTES = 1000;
const CORE = fileURLToPath(new URL('../../core/definition/index.ts', import.meta.url));
const ZOD = fileURLToPath(import.meta.resolve('zod'));

// Modules written at test time, outside the repository: workflow code the fixtures deliberately do not contain.
const STEP_MODULE = `
import { z } from ${JSON.stringify(ZOD)};
import { step } from ${JSON.stringify(CORE)};
export const LABEL = 'only in Node';
export const addTen = step({ name: 'add_ten', inputSchema: z.number(), fn: async (n: number) => n + 10 });
const attempts = new Map<string, number>();
export const flaky = step({
  name: 'flaky',
  retry: { maximumAttempts: 3, initialIntervalMs: 10 },
  fn: async (key: string) => {
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    if (attempt < 3) throw new Error('not yet');
    return attempt;
  },
});
`;
const WORKFLOW_MODULE = `
import { z } from ${JSON.stringify(ZOD)};
import { workflow, step, ChildWorkflowFailedError } from ${JSON.stringify(CORE)};
import { addTen, flaky, LABEL } from './steps.ts';
const any = z.unknown();
export const asValues = workflow({ name: 'as_values', description: '', inputSchema: z.array(z.number()), outputSchema: any,
  fn: async (items) => ({ values: await Promise.all(items.map(addTen)), label: typeof LABEL, stepName: addTen.definition.name }) });
const inline = step({ name: 'inline', fn: async () => 'ran in the sandbox' });
export const inlineStep = workflow({ name: 'inline_step', description: '', inputSchema: any, outputSchema: any, fn: async () => inline(undefined) });
export const retries = workflow({ name: 'retries', description: '', inputSchema: z.string(), outputSchema: any, fn: async (key) => flaky(key) });
export const big = workflow({ name: 'big', description: '', inputSchema: z.number(), outputSchema: any, fn: async (size) => 'x'.repeat(size) });
export const failing = workflow({ name: 'failing', description: '', inputSchema: any, outputSchema: any, fn: async () => { throw new TypeError('child gave up'); } });
export const catching = workflow({ name: 'catching', description: '', inputSchema: any, outputSchema: any, fn: async (_input, ctx) => {
  try { return await ctx.executeChild('failing', {}); }
  catch (error) { const e = error as ChildWorkflowFailedError; return { name: e.name, status: e.status, failure: e.failure, isChildError: error instanceof ChildWorkflowFailedError }; }
} });
`;

interface Context {
  server: TemporalDevServer;
  modules: string;
  traceDir: string;
  worker: FlowgateWorker;
  running: Promise<void>;
  connection: Connection;
  client: Client;
}

const quirks = suite<Context>('Temporal worker: step swapping at the edges');
let ids = 0;
const uniqueId = (prefix: string): string => `${prefix}-${Date.now()}-${(ids += 1)}`;

quirks.before(async (context) => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // Another suite in this process installed the runtime already.
  }
  context.server = await startTemporalDevServer({ cliPath: await ensureTemporalCli(), log: () => {} });
  context.modules = await mkdtemp(join(tmpdir(), 'flowgate-quirks-'));
  context.traceDir = join(context.modules, 'traces');
  await writeFile(join(context.modules, 'steps.ts'), STEP_MODULE);
  await writeFile(join(context.modules, 'workflows.ts'), WORKFLOW_MODULE);
  context.worker = await createWorker({
    temporal: { address: context.server.address, maxMessageBytes: 1024 * 1024 },
    namespace: context.server.namespace,
    catalog: CATALOG,
    // steps.ts is in the directory too: a module without workflows adds none.
    workflowsDir: context.modules,
    maxResultBytes: MAX_RESULT_BYTES,
    ...(await testWorkerParts({ TRACE_DIR: context.traceDir }, { info: () => {}, warn: () => {}, error: (message, fields) => console.error(message, fields) })),
  });
  context.running = context.worker.run();
  context.connection = await Connection.connect({ address: context.server.address });
  context.client = new Client({ connection: context.connection, namespace: context.server.namespace });
});

quirks.after(async (context) => {
  await context.worker?.shutdown();
  await context.running?.catch(() => {});
  await context.connection?.close();
  await context.server?.stop();
  if (context.modules) await rm(context.modules, { recursive: true, force: true });
});

const execute = (context: Context, type: string, input: unknown) =>
  context.client.workflow.execute(type, { taskQueue: CATALOG, workflowId: uniqueId(type), args: [input] });

async function failureType(promise: Promise<unknown>): Promise<{ type: string | null | undefined; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const cause = error.cause as ApplicationFailure;
    return { type: cause.type, message: cause.message };
  }
  throw new Error('the workflow did not fail');
}

quirks('a step is an ordinary value (items.map(step)); non-step exports of its module are undefined', async (context) => {
  assert.equal(await execute(context, 'as_values', [1, 2, 3]), { values: [11, 12, 13], label: 'undefined', stepName: 'add_ten' });
});

quirks('a step defined inside a workflow module fails clearly instead of running in the sandbox', async (context) => {
  const failure = await failureType(execute(context, 'inline_step', null));
  assert.is(failure.type, 'UnswappedStepError');
  assert.match(failure.message, /Step "inline" ran inside the workflow sandbox/);
});

quirks('a step is retried by its own policy; its trace entry shows the last attempt', async (context) => {
  const workflowId = uniqueId('retries');
  const handle = await context.client.workflow.start('retries', { taskQueue: CATALOG, workflowId, args: ['k1'] });
  assert.is(await handle.result(), 3);
  const description = await handle.describe();
  const path = join(context.traceDir, traceRelativePath({ workflowName: 'retries', workflowId, runId: description.runId, startedAt: description.startTime }));
  const trace = JSON.parse(await readFile(path, 'utf8')) as TraceRecord;
  assert.equal(trace.steps.map((step) => ({ name: step.name, attempt: step.attempt, output: step.output, error: step.error })), [
    { name: 'flaky', attempt: 3, output: 3, error: null },
  ]);
});

quirks('a result over MAX_RESULT_BYTES fails the run with ResultTooLargeError', async (context) => {
  assert.is(await execute(context, 'big', MAX_RESULT_BYTES - 10), 'x'.repeat(MAX_RESULT_BYTES - 10));
  const failure = await failureType(execute(context, 'big', MAX_RESULT_BYTES));
  assert.is(failure.type, RESULT_TOO_LARGE_ERROR);
});

quirks('a failed child reaches its parent as ChildWorkflowFailedError with the child failure', async (context) => {
  assert.equal(await execute(context, 'catching', {}), {
    name: 'ChildWorkflowFailedError',
    status: 'failed',
    failure: { name: 'TypeError', message: 'child gave up' },
    isChildError: true,
  });
});

quirks('bundling refuses a module that exports workflows and steps, and a step named "webhook"', async (context) => {
  const mixed = join(context.modules, 'mixed.ts');
  await writeFile(
    mixed,
    `${STEP_MODULE}\nimport { workflow } from ${JSON.stringify(CORE)};\n` +
      `export const mixedUp = workflow({ name: 'mixed_up', description: '', inputSchema: z.number(), outputSchema: z.number(), fn: async (n) => addTen(n) });\n`,
  );
  const refused = await bundleCatalog({ workflowModules: [mixed], maxResultBytes: 10 }).then(
    () => undefined,
    (error: Error) => error.message,
  );
  assert.match(refused ?? '', /mixed\.ts exports both workflows \(mixed_up\) and steps \(add_ten, flaky\)/);

  const reserved = join(context.modules, 'reserved.ts');
  await writeFile(reserved, `import { step } from ${JSON.stringify(CORE)};\nexport const webhook = step({ name: 'webhook', fn: async () => 1 });\n`);
  const usesReserved = join(context.modules, 'usesReserved.ts');
  await writeFile(
    usesReserved,
    `import { z } from ${JSON.stringify(ZOD)};\nimport { workflow } from ${JSON.stringify(CORE)};\nimport { webhook } from './reserved.ts';\n` +
      `export const w = workflow({ name: 'w', description: '', inputSchema: z.unknown(), outputSchema: z.unknown(), fn: async () => webhook(undefined) });\n`,
  );
  const reservedError = await bundleCatalog({ workflowModules: [usesReserved], maxResultBytes: 10 }).then(
    () => undefined,
    (error: Error) => error.message,
  );
  assert.match(reservedError ?? '', /step name "webhook" .* is reserved/);
});

quirks('a worker shut down before it ran releases its connections', async (context) => {
  const idle = await createWorker({
    temporal: { address: context.server.address, maxMessageBytes: 1024 * 1024 },
    namespace: context.server.namespace,
    catalog: 'never-ran',
    workflowModules: [join(context.modules, 'workflows.ts')],
    maxResultBytes: MAX_RESULT_BYTES,
    ...(await testWorkerParts({ TRACE_DIR: context.traceDir }, { info: () => {}, warn: () => {}, error: () => {} })),
  });
  await idle.shutdown();
  await idle.shutdown();
  const refused = await idle.run().then(
    () => undefined,
    (error: Error) => error.message,
  );
  assert.match(refused ?? '', /shut down before it ran/);
});

quirks.run();
