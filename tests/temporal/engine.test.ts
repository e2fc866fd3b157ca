// TemporalEngine on a real Temporal server: runs, outcomes, history, errors, reset and the run list
// (tests/temporal/engineHarness.ts sets up the server, the engine and a worker of fixture workflows).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { catalogWorkflowId } from '../../adapters/temporal/protocol.js';
import type { HistoryEvent } from '../../core/domain/history.js';
import { eventually } from '../support/eventually.js';
import { historyEventsOf } from '../support/runStream.js';
import { allEvents, idFor, rejectsWith, run, startHarness, stopHarness, type EngineHarness } from './engineHarness.js';

const test = suite<EngineHarness>('TemporalEngine on a real server: runs');

test.before((context) => startHarness(context, 'runs'));
test.after((context) => stopHarness(context));

test('start, await, describe, outcome, input and a history of neutral events numbered 1..n', async (context) => {
  const { started, outcome } = await run(context, 'arithmetic', { n: 3 });
  assert.is(started.status, 'running');
  assert.is(started.firstRunId, started.runId);
  assert.is(outcome.run.status, 'completed');
  assert.equal(outcome.output, { result: 8 });
  assert.is(outcome.failure, null);
  const described = await context.engine.describe({ workflowId: started.workflowId });
  assert.equal([described.runId, described.workflowName, described.catalog, described.firstRunId], [started.runId, 'arithmetic', context.catalog, started.runId]);
  assert.ok(described.closedAt && described.closedAt >= described.startedAt);
  assert.equal(await context.engine.getInput({ workflowId: started.workflowId, runId: started.runId }), { n: 3 });
  assert.equal((await context.engine.getOutcome({ workflowId: started.workflowId })).output, { result: 8 });

  const events = await allEvents(context, started.workflowId, started.runId);
  assert.equal(events.map((event) => event.eventId), events.map((_, index) => index + 1));
  assert.equal(events.map((event) => event.type), [
    'workflow_started', 'step_scheduled', 'step_started', 'step_completed', 'step_scheduled', 'step_started', 'step_completed', 'workflow_completed',
  ]);
  assert.equal(events[0]!.attributes, { workflowName: 'arithmetic', catalog: context.catalog, input: { n: 3 } });
  assert.equal(events[1], { ...events[1]!, stepName: 'add_one', attributes: { activityType: 'arithmetic#add_one', kind: 'step', input: 3 } });
  assert.equal(events[3]!.attributes, { attempt: 1, output: 4 });
  assert.equal(events.at(-1)!.attributes, { output: { result: 8 } });
  for (const pageSize of [1, 2, 3]) assert.equal(await allEvents(context, started.workflowId, started.runId, pageSize), events, `pages of ${pageSize}`);
});

test('errors: unknown ids and runs, a second start while open, forged tokens, open-run outcome', async (context) => {
  const missing = idFor(context, 'missing');
  await rejectsWith(() => context.engine.describe({ workflowId: missing }), 'WorkflowNotFoundError');
  const { started } = await run(context, 'arithmetic', { n: 1 }, idFor(context, 'errors'));
  const otherRun = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  await rejectsWith(() => context.engine.describe({ workflowId: started.workflowId, runId: otherRun }), 'WorkflowNotFoundError');
  await rejectsWith(() => context.engine.getInput({ workflowId: missing, runId: otherRun }), 'WorkflowNotFoundError');
  await rejectsWith(() => context.engine.historyPage({ workflowId: started.workflowId }, { pageSize: 2, pageToken: 'garbage' }), 'ValidationError',
  );
  const { page } = await context.engine.historyPage({ workflowId: started.workflowId }, { pageSize: 2 });
  await rejectsWith(() => context.engine.historyPage({ workflowId: started.workflowId }, { pageSize: 3, pageToken: page.nextPageToken! }), 'ValidationError',
    'a token of another page size is stale',
  );

  const open = await context.engine.start({ workflowName: 'awaitsFeedback', catalog: context.catalog, workflowId: idFor(context, 'open'), input: {} });
  await rejectsWith(() => context.engine.start({ workflowName: 'awaitsFeedback', catalog: context.catalog, workflowId: open.workflowId, input: {} }), 'WorkflowAlreadyStartedError',
  );
  await rejectsWith(() => context.engine.getOutcome({ workflowId: open.workflowId }), 'WorkflowNotCompletedError');
  assert.is(await context.engine.awaitOutcome({ workflowId: open.workflowId, runId: open.runId }, { timeoutMs: 300 }), undefined, 'timeout resolves undefined');
  await context.engine.terminate({ workflowId: open.workflowId, runId: open.runId }, 'done here');
  const terminated = await context.engine.getOutcome({ workflowId: open.workflowId });
  assert.is(terminated.run.status, 'terminated');
  assert.equal(terminated.failure, { name: 'WorkflowTerminatedError', message: 'done here' });
  await rejectsWith(() => context.engine.cancel({ workflowId: open.workflowId }), 'WorkflowClosedError');
  await rejectsWith(() => context.engine.deliverFeedback(open.workflowId, {}), 'WorkflowClosedError');
  await rejectsWith(() => context.engine.deliverFeedback(missing, {}), 'WorkflowNotFoundError');
  await rejectsWith(() => context.engine.start({ workflowName: 'x', catalog: context.catalog, workflowId: catalogWorkflowId('main'), input: {} }), 'ValidationError',
  );
});

test('failed run: the flowgate failure detail, and step_failed in history', async (context) => {
  const { started, outcome } = await run(context, 'failsInStep', { reason: 'no' });
  assert.is(outcome.run.status, 'failed');
  assert.equal(outcome.failure, { name: 'InvoiceRejected', message: 'no', activityType: 'failsInStep#reject_invoice', retryable: false });
  const events = await allEvents(context, started.workflowId, started.runId);
  const failed = events.find((event) => event.type === 'step_failed');
  assert.is(failed?.stepName, 'reject_invoice');
  assert.equal(failed?.attributes, { attempt: 1, error: { name: 'InvoiceRejected', message: 'no', retryable: false } });
  assert.is(events.at(-1)!.type, 'workflow_failed');
});

test('continue-as-new: awaitOutcome follows the chain; firstRunId and inputs per run', async (context) => {
  const { started, outcome } = await run(context, 'countdown', { n: 2 });
  assert.is.not(outcome.run.runId, started.runId);
  assert.is(outcome.run.status, 'completed');
  assert.is(outcome.run.firstRunId, started.runId);
  assert.equal(await context.engine.getInput({ workflowId: started.workflowId, runId: outcome.run.runId }), { n: 0 });
  const first = await context.engine.describe({ workflowId: started.workflowId, runId: started.runId });
  assert.is(first.status, 'continued_as_new');
  const events = await allEvents(context, started.workflowId, started.runId);
  assert.is(events.at(-1)!.type, 'workflow_continued_as_new');
  assert.equal(events.at(-1)!.attributes, { newRunId: (events.at(-1)!.attributes as { newRunId: string }).newRunId, input: { n: 1 } });
});

test('feedback, followRun live until the close, and Last-Event-ID resume', async (context) => {
  const open = await context.engine.start({ workflowName: 'awaitsFeedback', catalog: context.catalog, workflowId: idFor(context, 'follow'), input: {} });
  const pinned = { workflowId: open.workflowId, runId: open.runId };
  const seen: HistoryEvent[] = [];
  const following = (async () => {
    for await (const event of historyEventsOf(context.engine.followRun(pinned, 0, new AbortController().signal))) seen.push(event);
  })();
  // The follower has read what the run holds so far, so the feedback and the close reach it live.
  await eventually('the follower to see the start', () => seen.length >= 1, { intervalMs: 20 });
  assert.equal(await context.engine.deliverFeedback(open.workflowId, { approved: true }), pinned);
  await following;
  assert.equal(seen.map((event) => event.type), ['workflow_started', 'signal_received', 'workflow_completed']);
  assert.equal(seen[1]!.attributes, { signalName: 'feedback', payload: { approved: true } });
  const resumed: HistoryEvent[] = [];
  for await (const event of historyEventsOf(context.engine.followRun(pinned, 1, new AbortController().signal))) resumed.push(event);
  assert.equal(resumed, seen.slice(1));

  const stillOpen = await context.engine.start({ workflowName: 'awaitsFeedback', catalog: context.catalog, workflowId: idFor(context, 'abort'), input: {} });
  const controller = new AbortController();
  const abortedAt = Date.now();
  setTimeout(() => controller.abort(), 300);
  const events: HistoryEvent[] = [];
  for await (const event of historyEventsOf(context.engine.followRun({ workflowId: stillOpen.workflowId, runId: stillOpen.runId }, 0, controller.signal))) events.push(event);
  assert.ok(Date.now() - abortedAt < 3000, 'an abort ends the long poll at once');
  assert.equal(events.map((event) => event.type), ['workflow_started']);
  await context.engine.cancel({ workflowId: stillOpen.workflowId });
  const cancelled = await context.engine.awaitOutcome({ workflowId: stillOpen.workflowId, runId: stillOpen.runId }, { timeoutMs: 10_000 });
  assert.is(cancelled?.run.status, 'cancelled');
  assert.equal(cancelled?.failure, { name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' });
});

test('reset: new run after the step; errors for a step that never ran or never completed', async (context) => {
  const { started } = await run(context, 'arithmetic', { n: 3 }, idFor(context, 'reset'));
  const pinned = { workflowId: started.workflowId, runId: started.runId };
  await rejectsWith(() => context.engine.reset(pinned, 'nope', 'r'), 'StepNotFoundError');
  const reset = await context.engine.reset(pinned, 'add_one', 'again');
  assert.is(reset.workflowId, started.workflowId);
  assert.is.not(reset.runId, started.runId);
  const outcome = await context.engine.awaitOutcome(reset, { timeoutMs: 30_000 });
  assert.equal(outcome?.output, { result: 8 });
  const events = await allEvents(context, reset.workflowId, reset.runId);
  const marker = events.find((event) => event.type === 'workflow_reset');
  assert.equal(marker?.attributes, { reason: 'again', stepName: 'add_one', resetFromRunId: started.runId });
  assert.equal(events.map((event) => event.eventId), events.map((_, index) => index + 1));

  const failing = await run(context, 'failsInStep', { reason: 'x' }, idFor(context, 'reset-nc'));
  await rejectsWith(() => context.engine.reset({ workflowId: failing.started.workflowId, runId: failing.started.runId }, 'reject_invoice', 'r'), 'StepNotCompletedError',
  );
});

test('listRuns: filters, the catalog registry hidden, paging with bound tokens', async (context) => {
  const runIds: string[] = [];
  for (let index = 0; index < 3; index += 1) runIds.push((await run(context, 'arithmetic', { n: index }, idFor(context, `list-${index}`))).started.runId);
  // Visibility is eventually consistent: wait until the list shows the three runs closed.
  const list = await eventually('the three runs listed as completed', async () => {
    const listed = await context.engine.listRuns({ catalog: context.catalog, workflowName: 'arithmetic', limit: 1000 });
    const shown = runIds.filter((runId) => listed.runs.some((runItem) => runItem.runId === runId && runItem.status === 'completed'));
    return shown.length === runIds.length && listed;
  });
  assert.ok(list.runs.length >= 3);
  assert.ok(list.runs.every((runItem) => runItem.catalog === context.catalog && runItem.workflowName === 'arithmetic'));
  const completed = await context.engine.listRuns({ catalog: context.catalog, status: 'completed', limit: 1000 });
  assert.ok(completed.runs.every((runItem) => runItem.status === 'completed'));
  const paged = [];
  let pageToken: string | undefined;
  do {
    const page = await context.engine.listRuns({ catalog: context.catalog, workflowName: 'arithmetic', limit: 2, ...(pageToken ? { pageToken } : {}) });
    paged.push(...page.runs);
    pageToken = page.nextPageToken ?? undefined;
    if (pageToken) {
      await rejectsWith(() => context.engine.listRuns({ catalog: context.catalog, workflowName: 'countdown', limit: 2, pageToken }), 'ValidationError',
      );
    }
  } while (pageToken);
  assert.equal(paged.map((runItem) => runItem.runId), list.runs.map((runItem) => runItem.runId));
});

test.run();
