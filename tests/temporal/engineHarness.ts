// A harness for driving TemporalEngine against a real Temporal dev server with workflows written straight against
// @temporalio/workflow (tests/temporal/fixtures/workflows.ts) on a plain @temporalio/worker Worker, so the adapter is
// proven without flowgate's own worker runtime. Uses TEMPORAL_ADDRESS when the runner provides a server, else starts
// one. Every catalog (task queue) and workflow id is unique to the process, so suites sharing a server never meet.
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/activity';
import { Client, type Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { connectTemporal, TemporalEngine } from '../../adapters/temporal/index.js';
import { enums } from '../../adapters/temporal/engine/proto.js';
import type { HistoryEvent } from '../../core/domain/history.js';
import type { Logger } from '../../ports/logger.js';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/infra/index.mjs';
import { SkippableSystemClock } from '../support/manualClock.js';

export interface EngineHarness {
  server?: TemporalDevServer;
  engine: TemporalEngine;
  /** A plain client beside the engine, for what the tests set up themselves (a stand-in catalog registry). */
  client: Client;
  connection: Connection;
  worker: Worker;
  workerDone: Promise<void>;
  workerConnection: NativeConnection;
  catalog: string;
  stamp: string;
  /** The engine's clock: the system's, which a test moves ahead past a cache's expiry. */
  clock: SkippableSystemClock;
}

const quiet: Logger = { info() {}, warn() {}, error() {} };
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export const idFor = (harness: Pick<EngineHarness, 'stamp'>, name: string): string => `engine-${name}-${harness.stamp}`;

/** Fills `context` with a connected engine, a raw client and a worker serving the fixture workflows. */
export async function startHarness(context: EngineHarness, label: string): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  let address = process.env.TEMPORAL_ADDRESS;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  if (!address) {
    context.server = await startTemporalDevServer({ cliPath: await ensureTemporalCli({ log: () => {} }), log: () => {} });
    address = context.server.address;
  }
  context.stamp = `${label}-${Date.now().toString(36)}-${process.pid}`;
  context.catalog = `engine-test-${context.stamp}`;
  context.clock = new SkippableSystemClock();
  context.engine = await TemporalEngine.connect({ address, namespace, maxMessageBytes: MAX_MESSAGE_BYTES, logger: quiet, clock: context.clock });
  context.connection = await connectTemporal({ address, maxMessageBytes: MAX_MESSAGE_BYTES });
  context.client = new Client({ connection: context.connection, namespace });
  context.workerConnection = await NativeConnection.connect({ address });
  context.worker = await Worker.create({
    connection: context.workerConnection,
    namespace,
    taskQueue: context.catalog,
    workflowsPath: fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url)),
    activities: {
      'arithmetic#add_one': async (n: number) => n + 1,
      'arithmetic#double': async (n: number) => n * 2,
      'stepThenWaits#add_one': async (n: number) => n + 1,
      'failsInStep#reject_invoice': async (reason: string) => {
        throw ApplicationFailure.create({ type: 'InvoiceRejected', message: reason, nonRetryable: true });
      },
    },
  });
  context.workerDone = context.worker.run();
  await pollersOf(context.client, namespace, context.catalog);
}

/**
 * Until the worker polls both queues of its task queue, as Temporal reports it: a catalog is available only then, and
 * `worker.run()` starts polling without waiting for it.
 */
async function pollersOf(client: Client, namespace: string, taskQueue: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answers = await Promise.all(
      [enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, enums.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY].map((taskQueueType) =>
        client.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL }, taskQueueType }),
      ),
    );
    if (answers.every((answer) => (answer.pollers ?? []).length > 0)) return;
    if (Date.now() > deadline) throw new Error(`the test worker on ${taskQueue} did not poll within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function stopHarness(context: EngineHarness): Promise<void> {
  context.worker?.shutdown();
  await context.workerDone?.catch(() => {});
  await context.workerConnection?.close();
  await context.engine?.close();
  await context.connection?.close();
  await context.server?.stop();
}

export async function rejectsWith(action: () => Promise<unknown>, errorName: string, message?: string): Promise<void> {
  try {
    await action();
  } catch (error) {
    assert.is((error as Error).name, errorName, message);
    return;
  }
  assert.unreachable(message ?? `expected ${errorName}`);
}

/** Starts a run of a fixture workflow and waits for the end of its chain. */
export async function run(context: EngineHarness, workflowName: string, input: unknown, workflowId = idFor(context, workflowName)) {
  const started = await context.engine.start({ workflowName, catalog: context.catalog, workflowId, input });
  const outcome = await context.engine.awaitOutcome({ workflowId, runId: started.runId }, { timeoutMs: 30_000 });
  assert.ok(outcome, `${workflowName} finished`);
  return { started, outcome: outcome! };
}

/** Every neutral event of a run, page by page; no page may be empty. */
export async function allEvents(context: EngineHarness, workflowId: string, runId: string, pageSize = 200): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let pageToken: string | undefined;
  do {
    const { page } = await context.engine.historyPage({ workflowId, runId }, { pageSize, ...(pageToken ? { pageToken } : {}) });
    assert.ok(page.events.length > 0, 'no empty page');
    events.push(...page.events);
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken);
  return events;
}
