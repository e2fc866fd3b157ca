// A rolling deploy of a catalog (docs/operations.md, Workers): while the pool is rolled one worker at a time, an old
// worker and a new one poll the same task queue. The new worker publishes a workflow the old one lacks, so the API
// accepts starts of it, and Temporal may hand such a run to the old worker first: the run must wait for the new one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { createWorker, type FlowgateWorker } from '../../composition/worker.js';
import { testWorkerParts } from '../support/workerParts.js';
import { eventually } from '../support/eventually.js';

const CATALOG = 'rolling-deploy';
const MAX_RESULT_BYTES = 1024 * 1024;
const CORE = fileURLToPath(new URL('../../core/definition/index.ts', import.meta.url));
const ZOD = fileURLToPath(import.meta.resolve('zod'));

const GREETS = `export const greets = workflow({ name: 'greets', description: '', inputSchema: z.string(), outputSchema: z.string(), fn: async (name) => 'hello ' + name });`;
const RELEASE_MODULE = (workflows: string) =>
  `import { z } from ${JSON.stringify(ZOD)};\nimport { workflow } from ${JSON.stringify(CORE)};\n${workflows}\n`;
/** The release being rolled out: what the old one had, and a new workflow. */
const NEWCOMER = `export const newcomer = workflow({ name: 'newcomer', description: '', inputSchema: z.string(), outputSchema: z.string(), fn: async (name) => 'welcome ' + name });`;

interface Running {
  worker: FlowgateWorker;
  done: Promise<void>;
}

interface Context {
  server: TemporalDevServer;
  dir: string;
  workers: Running[];
  connection: Connection;
  client: Client;
}

const rolling = suite<Context>('Temporal: a rolling deploy with an old and a new worker on one task queue');

rolling.before(async (context) => {
  try {
    // The SDK logs every failed workflow task at WARN; the old worker fails them on purpose.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // Another suite in this process installed the runtime already.
  }
  context.workers = [];
  context.server = await startTemporalDevServer({ cliPath: await ensureTemporalCli(), log: () => {} });
  context.dir = await mkdtemp(join(tmpdir(), 'flowgate-rolling-'));
  context.connection = await Connection.connect({ address: context.server.address });
  context.client = new Client({ connection: context.connection, namespace: context.server.namespace });
});

rolling.after(async (context) => {
  await Promise.allSettled(context.workers.map(async ({ worker, done }) => {
    await worker.shutdown();
    await done.catch(() => {});
  }));
  await context.connection?.close();
  await context.server?.stop();
  if (context.dir) await rm(context.dir, { recursive: true, force: true });
});

async function startWorker(context: Context, release: string, workflows: string): Promise<void> {
  const dir = join(context.dir, release);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'workflows.ts'), RELEASE_MODULE(workflows));
  const worker = await createWorker({
    temporal: { address: context.server.address, maxMessageBytes: MAX_RESULT_BYTES },
    namespace: context.server.namespace,
    catalog: CATALOG,
    workflowModules: [join(dir, 'workflows.ts')],
    maxResultBytes: MAX_RESULT_BYTES,
    ...(await testWorkerParts({ TRACE_DIR: join(context.dir, 'traces') }, { info: () => {}, warn: () => {}, error: () => {} })),
  });
  const done = worker.run();
  context.workers.push({ worker, done });
  await worker.waitUntilPublished();
}

rolling('a run of a workflow the old worker does not serve waits for the new worker instead of failing', async (context) => {
  await startWorker(context, 'old', GREETS);
  // Only the old worker polls yet, so it certainly takes the run's first workflow task.
  const handle = await context.client.workflow.start('newcomer', { taskQueue: CATALOG, workflowId: `newcomer-${Date.now()}`, args: ['ada'] });
  const seen = await eventually('the old worker to take the run', async () => {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') return status.name;
    const { events } = await handle.fetchHistory();
    return events?.some((event) => event.workflowTaskFailedEventAttributes) ? 'task failed' : undefined;
  });
  assert.is(seen, 'task failed', 'the old worker fails only the workflow task; the run stays open');

  // The roll goes on: the new worker joins, then the old one leaves. Until it leaves, each retried task it takes
  // is let time out by the SDK (about 10 s: repeated task failures are not reported again), so the run is late, not lost.
  await startWorker(context, 'new', `${GREETS}\n${NEWCOMER}`);
  const old = context.workers[0]!;
  await old.worker.shutdown();
  await old.done;
  assert.is(await handle.result(), 'welcome ada');
});

rolling.run();
