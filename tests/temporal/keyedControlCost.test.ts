// A keyed feedback, reset or terminate on a long history reads none of it: the same gRPC calls as the call without a
// key, plus a describe or a newest-first page (docs/idempotency.md, Temporal). Counted on the engine's own
// connection, called directly so that no API process's own answers (core/idempotency) stand in for the engine's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import { TemporalEngine } from '../../adapters/temporal/index.js';
import { systemClock } from '../../adapters/system/index.js';
import { IdempotencyKeyReusedError } from '../../core/domain/errors.js';
import type { RequestIdempotency } from '../../core/domain/idempotency.js';
import type { PinnedRunRef } from '../../core/domain/run.js';
import type { Logger } from '../../ports/logger.js';
import { FIXTURE_CATALOGS } from '../support/fixtureCatalogs.js';
import { startTemporalWorkers } from '../support/temporalWorkers.js';
import { countedClient, GrpcCallCounter } from '../support/grpcCalls.js';
import { eventually } from '../support/eventually.js';

interface Context {
  counter: GrpcCallCounter;
  connection: Connection;
  engine: TemporalEngine;
  traceDir: string;
  workers: Awaited<ReturnType<typeof startTemporalWorkers>>;
}

const quiet: Logger = { info() {}, warn() {}, error() {} };
const MAIN = FIXTURE_CATALOGS.find(({ catalog }) => catalog === 'main')!;
/**
 * About 6 events a step: some 360 events, four pages of a newest-first read (100 events each), so a keyed call that
 * read the whole history would show. Longer runs prove nothing more and replay slowly (bench/ measures 10,000 events).
 */
const STEPS = 60;
const costs = suite<Context>('keyed control calls on a long Temporal history');

costs.before(async (context) => {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('tests/temporal/keyedControlCost.test.ts needs TEMPORAL_ADDRESS');
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  context.traceDir = await mkdtemp(join(tmpdir(), 'flowgate-keyed-'));
  const env = { TRACE_DIR: context.traceDir, DEFAULT_CATALOG: 'main' };
  context.workers = await startTemporalWorkers({ traceDir: context.traceDir, logger: quiet, env, catalogs: [MAIN] });
  context.counter = new GrpcCallCounter();
  const counted = await countedClient(address, namespace, context.counter);
  context.connection = counted.connection;
  context.engine = new TemporalEngine({ client: counted.client, namespace, logger: quiet, clock: systemClock });
});

costs.after(async (context) => {
  await context.engine?.close();
  await context.connection?.close();
  await context.workers?.close();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

/** A request's key as the core hands it to an engine; a new object is a retry through another API process. */
function keyed(key: string, fingerprint: string): RequestIdempotency {
  return { key, fingerprint, retentionMs: 60_000, requestedAt: new Date(), recognised() {} };
}

async function counted(context: Context, action: () => Promise<unknown>): Promise<Record<string, number>> {
  context.counter.reset();
  await action();
  return context.counter.snapshot();
}

/** A run of `steps_then_waits` that finished its steps and waits for its reply (its history has 6 events a step). */
async function longRun({ engine, connection }: Context): Promise<PinnedRunRef> {
  const run = await engine.start({ catalog: 'main', workflowName: 'steps_then_waits', workflowId: `keyed-cost-${randomUUID()}`, input: { steps: STEPS } });
  const ref = { workflowId: run.workflowId, runId: run.runId };
  return eventually(
    `${STEPS} steps to finish`,
    async () => {
      const described = await connection.workflowService.describeWorkflowExecution({ namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', execution: ref });
      const idle = !described.pendingWorkflowTask && (described.pendingActivities ?? []).length === 0;
      return idle && Number(described.workflowExecutionInfo?.historyLength ?? 0) >= 6 * STEPS && ref;
    },
    { timeoutMs: 180_000, intervalMs: 250 },
  );
}

costs('feedback, reset and terminate with a key: no whole-history read, whatever the history\'s length', async (context) => {
  const { engine } = context;
  const base = await longRun(context);

  // Reset: the unkeyed one reads the base run's history for its point, the keyed one the same and no more.
  const unkeyedReset = await counted(context, () => engine.reset(base, 'add_one', 'unkeyed'));
  assert.ok((unkeyedReset.GetWorkflowExecutionHistory ?? 0) >= 1, `the reset point is looked for in the history: ${JSON.stringify(unkeyedReset)}`);
  const resetKey = keyed(randomUUID(), 'reset-body');
  let made: PinnedRunRef | undefined;
  const keyedReset = await counted(context, async () => {
    made = await engine.reset(base, 'add_one', 'keyed', resetKey);
  });
  assert.is(keyedReset.GetWorkflowExecutionHistory, unkeyedReset.GetWorkflowExecutionHistory, JSON.stringify(keyedReset));
  assert.ok((keyedReset.GetWorkflowExecutionHistoryReverse ?? 0) <= 1, `the new run's mark, newest first: ${JSON.stringify(keyedReset)}`);
  const resetRetry = await counted(context, async () => assert.equal(await engine.reset(base, 'add_one', 'keyed', keyed(resetKey.key, 'reset-body')), made));
  assert.is(resetRetry.GetWorkflowExecutionHistory, undefined, `a retry reads no history forwards: ${JSON.stringify(resetRetry)}`);

  // Feedback and terminate on another long run, still waiting for its reply.
  const waiting = await longRun(context);
  const feedbackKey = keyed(randomUUID(), 'feedback-body');
  const keyedFeedback = await counted(context, () => engine.deliverFeedback(waiting.workflowId, { approved: true }, feedbackKey));
  assert.is(keyedFeedback.GetWorkflowExecutionHistory, undefined, JSON.stringify(keyedFeedback));
  assert.is(keyedFeedback.SignalWorkflowExecution, 1);
  assert.ok((keyedFeedback.GetWorkflowExecutionHistoryReverse ?? 0) <= 2, `its own signal, newest first: ${JSON.stringify(keyedFeedback)}`);
  const feedbackRetry = await counted(context, () => engine.deliverFeedback(waiting.workflowId, { approved: true }, keyed(feedbackKey.key, 'feedback-body')));
  assert.is(feedbackRetry.GetWorkflowExecutionHistory, undefined, JSON.stringify(feedbackRetry));
  const reused = await engine.deliverFeedback(waiting.workflowId, { approved: false }, keyed(feedbackKey.key, 'another-body')).catch((error: unknown) => error);
  assert.instance(reused, IdempotencyKeyReusedError);

  const open = await longRun(context);
  const terminateKey = keyed(randomUUID(), 'terminate-body');
  const keyedTerminate = await counted(context, () => engine.terminate(open, 'keyed', terminateKey));
  assert.equal(keyedTerminate, { DescribeWorkflowExecution: 1, TerminateWorkflowExecution: 1 });
  const terminateRetry = await counted(context, () => engine.terminate(open, 'keyed', keyed(terminateKey.key, 'terminate-body')));
  assert.equal(terminateRetry, { DescribeWorkflowExecution: 1, GetWorkflowExecutionHistoryReverse: 1 }, 'the closing event alone, newest first');
});

costs.run();
