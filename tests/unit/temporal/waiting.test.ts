import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitChainOutcome } from '../../../adapters/temporal/engine/awaitOutcome.js';
import { followRunHistory } from '../../../adapters/temporal/engine/followHistory.js';
import { HISTORY_PAGE_MAX_BYTES } from '../../../core/domain/history.js';
import type { RunDescription } from '../../../core/domain/run.js';
import { ManualClock } from '../../support/manualClock.js';
import { FakeClient } from './fakeClient.js';
import { arithmeticHistory, payloads, rawEvent } from './protoFixtures.js';

/** A long poll that never answers until cancelled (the server holds it while nothing happens). */
const hanging = () => new Promise<never>(() => {});

const describe = async (run: { workflowId: string; runId: string }): Promise<RunDescription> => ({
  ...run,
  workflowName: 'countdown',
  catalog: 'main',
  status: 'completed',
  startedAt: new Date(0),
  closedAt: new Date(1),
  firstRunId: 'r1',
});

test('awaitOutcome follows continue-as-new to the last run, long-polling each closing event', async () => {
  const client = new FakeClient({
    getWorkflowExecutionHistory: (request: { execution: { runId: string }; waitNewEvent: boolean; historyEventFilterType: number }) => {
      assert.ok(request.waitNewEvent && request.historyEventFilterType === 2, 'a long poll of the closing event');
      if (request.execution.runId === 'r1') {
        return { history: { events: [rawEvent(5, 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW', { workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'r2' } })] } };
      }
      return { history: { events: [rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', { workflowExecutionCompletedEventAttributes: { result: payloads({ done: true }) } })] } };
    },
  });
  const outcome = await awaitChainOutcome({ calls: client.calls(), clock: new ManualClock(0), describe }, { workflowId: 'w', runId: 'r1' }, { timeoutMs: 1000 });
  assert.equal([outcome?.run.runId, outcome?.output, outcome?.failure], ['r2', { done: true }, null]);
});

test('awaitOutcome: the timeout cancels the poll and resolves undefined; an abort rejects with its reason; a closed engine gives undefined', async () => {
  const client = new FakeClient({ getWorkflowExecutionHistory: hanging });
  const clock = new ManualClock(0);
  const calls = client.calls();
  const waiting = awaitChainOutcome({ calls, clock, describe }, { workflowId: 'w', runId: 'r' }, { timeoutMs: 50 });
  await clock.fireNext();
  assert.is(await waiting, undefined);

  const controller = new AbortController();
  const aborted = awaitChainOutcome({ calls, clock, describe }, { workflowId: 'w', runId: 'r' }, { timeoutMs: 1000, signal: controller.signal });
  controller.abort(new Error('client went away'));
  try {
    await aborted;
    assert.unreachable('aborted');
  } catch (error) {
    assert.is((error as Error).message, 'client went away');
  }
  assert.is(clock.pendingTimers, 0, 'timers are cleared');

  const closing = awaitChainOutcome({ calls, clock, describe }, { workflowId: 'w', runId: 'r' }, { timeoutMs: Number.POSITIVE_INFINITY });
  await new Promise((resolve) => setImmediate(resolve));
  calls.close();
  assert.is(await closing, undefined);
  try {
    await awaitChainOutcome({ calls, clock, describe }, { workflowId: 'w', runId: 'r' }, { timeoutMs: -1 });
    assert.unreachable('a negative timeout');
  } catch (error) {
    assert.instance(error, RangeError);
  }
});

test('followRunHistory: events after afterEventId, across long polls, ending after the closing event', async () => {
  const events = arithmeticHistory();
  const client = new FakeClient({
    getWorkflowExecutionHistory: (request: { nextPageToken?: Uint8Array; waitNewEvent: boolean }) => {
      assert.ok(request.waitNewEvent);
      // Two answers: what exists now, then (after a "wait") the rest.
      return request.nextPageToken
        ? { history: { events: events.slice(6) }, nextPageToken: new Uint8Array() }
        : { history: { events: events.slice(0, 6) }, nextPageToken: Buffer.from('more') };
    },
  });
  const seen = [];
  for await (const event of followRunHistory(client.calls(), { workflowId: 'w', runId: 'r' }, 2, new AbortController().signal, HISTORY_PAGE_MAX_BYTES)) seen.push(event);
  assert.equal(seen.map((event) => [event.eventId, event.type]), [
    [3, 'step_started'],
    [4, 'step_completed'],
    [5, 'workflow_completed'],
  ]);
});

test('followRunHistory ends quietly on abort, also in the middle of a long poll; a registry run is not a run', async () => {
  let polls = 0;
  const client = new FakeClient({
    getWorkflowExecutionHistory: (request: { nextPageToken?: Uint8Array }) => {
      polls += 1;
      return request.nextPageToken ? hanging() : { history: { events: arithmeticHistory().slice(0, 2) }, nextPageToken: Buffer.from('t') };
    },
  });
  const controller = new AbortController();
  const seen = [];
  for await (const event of followRunHistory(client.calls(), { workflowId: 'w', runId: 'r' }, 0, controller.signal, HISTORY_PAGE_MAX_BYTES)) {
    seen.push(event);
    setTimeout(() => controller.abort(), 10);
  }
  assert.equal([seen.length, polls], [1, 2]);

  const registry = new FakeClient({
    getWorkflowExecutionHistory: () => ({
      history: { events: [rawEvent(1, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', { workflowExecutionStartedEventAttributes: { workflowType: { name: 'flowgate.catalog' } } })] },
    }),
  });
  try {
    for await (const event of followRunHistory(registry.calls(), { workflowId: 'flowgate.catalog:main', runId: 'r' }, 0, new AbortController().signal, HISTORY_PAGE_MAX_BYTES)) void event;
    assert.unreachable('hidden');
  } catch (error) {
    assert.is((error as Error).name, 'WorkflowNotFoundError');
  }
});

test.run();
