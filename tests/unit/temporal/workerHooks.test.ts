import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import type { WorkflowInfo } from '@temporalio/workflow';
import { WorkflowDetailsCarrier } from '../../../adapters/temporal/worker/workflowDetailsCarrier.js';
import { runSinks } from '../../../adapters/temporal/worker/runSinks.js';
import { workflowDetailsOf } from '../../../adapters/temporal/workflowDetails.js';
import { RUN_SINK, WORKFLOW_DETAILS_HEADER } from '../../../adapters/temporal/protocol.js';
import type { TraceCollector } from '../../../adapters/temporal/worker/traceCollector.js';
import type { RunClosedMessage } from '../../../adapters/temporal/sandbox/runSink.js';
import type { RunObserver } from '../../../ports/runObserver.js';
import { testWorkerParts } from '../../support/workerParts.js';

/*
 * The Temporal side of worker hooks, piece by piece: workflowInfo as workflowDetails, the details header read by the
 * activity interceptor (and the describe fallback), and the run sink telling hooks once per run.
 */
const info = (overrides: Partial<WorkflowInfo> = {}): WorkflowInfo =>
  ({
    workflowId: 'w1',
    runId: 'r2',
    workflowType: 'metered',
    attempt: 2,
    firstExecutionRunId: 'r1',
    continuedFromExecutionRunId: 'r1',
    startTime: new Date(1000),
    runStartTime: new Date(2000),
    ...overrides,
  }) as WorkflowInfo;

test('workflowDetailsOf: every documented field, times as epoch ms, parent and root only when they exist', () => {
  assert.equal(workflowDetailsOf(info()), {
    attempt: 2,
    continuedFromExecutionRunId: 'r1',
    firstExecutionRunId: 'r1',
    runId: 'r2',
    runStartTime: 2000,
    startTime: 1000,
    workflowId: 'w1',
    workflowType: 'metered',
  });
  const child = workflowDetailsOf(
    info({ continuedFromExecutionRunId: undefined, parent: { workflowId: 'p', runId: 'pr', namespace: 'ns' }, root: { workflowId: 'p', runId: 'pr' } }),
  );
  assert.equal(Object.keys(child).sort(), ['attempt', 'firstExecutionRunId', 'parent', 'root', 'runId', 'runStartTime', 'startTime', 'workflowId', 'workflowType']);
  assert.equal(child.parent, { runId: 'pr', workflowId: 'p', namespace: 'ns' });
});

const activityContext = (): Context =>
  ({ info: { workflowExecution: { workflowId: 'w1', runId: 'r2' }, workflowType: 'metered', activityType: 'metered#s' } }) as unknown as Context;

test('the carrier returns the details of the attempt\'s header, without asking the server', async () => {
  let described = 0;
  const carrier = new WorkflowDetailsCarrier(async () => {
    described += 1;
    throw new Error('not expected');
  }, silentLogger());
  const context = activityContext();
  const details = workflowDetailsOf(info());
  const headers = { [WORKFLOW_DETAILS_HEADER]: defaultPayloadConverter.toPayload(details) };
  let ran = false;
  await carrier.interceptor(context).inbound!.execute!({ args: [], headers }, async () => {
    ran = true;
  });
  assert.ok(ran, 'the interceptor runs the attempt');
  assert.equal(await carrier.detailsOf(context), details);
  assert.is(described, 0);
});

test('without the header the details come from the activity info and describe; a failing describe means no hooks, logged', async () => {
  const warnings: string[] = [];
  const carrier = new WorkflowDetailsCarrier(async (workflowId, runId) => {
    if (runId === 'broken') throw new Error('unavailable');
    assert.equal([workflowId, runId], ['w1', 'r2']);
    return { startTime: 1000, runStartTime: 1500, parent: { runId: 'pr', workflowId: 'p', namespace: 'default' } };
  }, { ...silentLogger(), warn: (msg) => void warnings.push(msg) });
  const context = activityContext();
  await carrier.interceptor(context).inbound!.execute!({ args: [], headers: {} }, async () => {});
  assert.equal(await carrier.detailsOf(context), {
    attempt: 1,
    firstExecutionRunId: 'r2',
    parent: { runId: 'pr', workflowId: 'p', namespace: 'default' },
    runId: 'r2',
    runStartTime: 1500,
    startTime: 1000,
    workflowId: 'w1',
    workflowType: 'metered',
  });
  const broken = { info: { workflowExecution: { workflowId: 'w1', runId: 'broken' }, activityType: 'metered#s' } } as unknown as Context;
  assert.is(await carrier.detailsOf(broken), undefined);
  assert.equal(warnings, ['no workflow details for a step attempt; it runs without hooks']);
});

test('the run sink tells the hooks of a start and an end once per run, even when a workflow-task retry repeats the call', async () => {
  const told: string[] = [];
  const observer: RunObserver = {
    runStarted: (details) => void told.push(`start:${details.runId}`),
    runEnded: (details, end) => void told.push(`end:${details.runId}:${end.status}:${'error' in end ? end.error.message : ''}`),
    activityAttempt: (_attempt, run) => run(),
  };
  const traced: string[] = [];
  const traces = { runClosed: async (message: RunClosedMessage) => void traced.push(message.runId) } as unknown as TraceCollector;
  const sinks = runSinks({ traces, observer, logger: silentLogger() })[RUN_SINK];
  const closing = (status: RunClosedMessage['status'], failure: RunClosedMessage['failure']) => ({ runId: 'r2', status, failure }) as RunClosedMessage;
  sinks.runStarted.fn(info());
  sinks.runStarted.fn(info());
  await sinks.runClosed.fn(info(), closing('failed', { name: 'Error', message: 'boom' }));
  await sinks.runClosed.fn(info(), closing('failed', { name: 'Error', message: 'boom' }));
  await sinks.runClosed.fn(info({ runId: 'r3' }), { ...closing('cancelled', null), runId: 'r3' });
  assert.equal(told, ['start:r2', 'end:r2:failed:boom', 'end:r3:cancelled:the run cancelled']);
  assert.equal(traced, ['r2', 'r2', 'r3'], 'the trace collector dedupes its own calls');
  assert.is(sinks.runStarted.callDuringReplay, false);
  assert.is(sinks.runClosed.callDuringReplay, false);
});

test('createWorker refuses hooks with a prebuilt bundle whose steps do not carry workflowDetails, before connecting', async () => {
  const { createWorker } = await import('../../../composition/worker.js');
  const bundle = { workflowBundle: { code: '' }, workflows: [], activities: new Map(), workflowDetailsHeader: false };
  const error = await createWorker({
    temporal: { address: '127.0.0.1:1', maxMessageBytes: 1024 },
    namespace: 'default',
    catalog: 'main',
    maxResultBytes: 1024,
    ...(await testWorkerParts({ TRACE_DIR: '/nonexistent' }, silentLogger())),
    bundle,
    hookFiles: [fileURLToPath(new URL('../../fixtures/hooks/recordingHooks.ts', import.meta.url))],
  }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  assert.instance(error, TypeError);
  assert.match((error as Error).message, 'needs a bundle built with workflowDetailsHeader: true');
});

function silentLogger() {
  return { info: () => {}, warn: () => {}, error: () => {} };
}

test.run();
