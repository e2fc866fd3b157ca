import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Metadata, status } from '@grpc/grpc-js';
import { queryLiteral, RunLister, visibilityQuery } from '../../../adapters/temporal/engine/listRuns.js';
import { PageTokens } from '../../../adapters/pageTokens.js';
import { findResetPoint } from '../../../adapters/temporal/engine/reset.js';
import { parseResetReason, resetReasonWithStep } from '../../../adapters/temporal/engine/resetReason.js';
import { toNumber } from '../../../adapters/temporal/engine/values.js';
import { FakeClient } from './fakeClient.js';
import { arithmeticHistory, executionInfo, rawEvent, timestamp } from './protoFixtures.js';

test('visibility queries: the registry and callback deliveries always excluded, catalog as TaskQueue, status names, quoting', () => {
  assert.is(visibilityQuery({}), "WorkflowType != 'flowgate.catalog' AND WorkflowType != 'flowgate.callback'");
  assert.is(
    visibilityQuery({ workflowName: 'arithmetic', catalog: 'main', status: 'continued_as_new' }),
    "WorkflowType != 'flowgate.catalog' AND WorkflowType != 'flowgate.callback' AND WorkflowType = 'arithmetic' AND TaskQueue = 'main' AND ExecutionStatus = 'ContinuedAsNew'",
  );
  assert.is(visibilityQuery({ status: 'cancelled' }), "WorkflowType != 'flowgate.catalog' AND WorkflowType != 'flowgate.callback' AND ExecutionStatus = 'Canceled'");
  assert.is(queryLiteral("it's"), "'it''s'");
  assert.is(queryLiteral('a\\b'), "'a\\\\b'");
  assert.is(queryLiteral("x' OR WorkflowType != 'y"), "'x'' OR WorkflowType != ''y'");
});

function grpcError(code: status, details: string): Error {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

test('run list: ORDER BY where the store sorts; learnt once when it refuses; tokens bound to the filter', async () => {
  const info = executionInfo({
    execution: { workflowId: 'w', runId: 'r' },
    type: { name: 'echo' },
    taskQueue: 'main',
    status: 'WORKFLOW_EXECUTION_STATUS_RUNNING',
    startTime: timestamp('2026-01-01T00:00:00Z'),
  });
  const client = new FakeClient({
    listWorkflowExecutions: (request: { query: string; nextPageToken?: Uint8Array }) => {
      if (request.query.includes('ORDER BY')) throw grpcError(status.INVALID_ARGUMENT, "invalid query: operation is not supported: 'order by' clause");
      return { executions: [info], nextPageToken: request.nextPageToken ? new Uint8Array() : Buffer.from('page-2') };
    },
  });
  const tokens = new PageTokens('shared-secret-of-some-length');
  const lister = new RunLister(client.calls(), tokens);
  const first = await lister.list({ workflowName: 'echo', limit: 1 });
  assert.equal(first.runs.map((run) => run.runId), ['r']);
  assert.type(first.nextPageToken, 'string');
  assert.equal(client.requests.map((entry) => entry.request.query.endsWith('ORDER BY StartTime DESC')), [true, false]);
  const second = await lister.list({ workflowName: 'echo', limit: 1, pageToken: first.nextPageToken! });
  assert.is(second.nextPageToken, null);
  assert.is(client.count('listWorkflowExecutions'), 3, 'the refusal is remembered');
  assert.equal(Buffer.from(client.requests[2]!.request.nextPageToken).toString(), 'page-2');
  // Another API server with the same key continues the listing in the form the token was issued for.
  const elsewhere = new RunLister(client.calls(), new PageTokens('shared-secret-of-some-length'));
  await elsewhere.list({ workflowName: 'echo', limit: 1, pageToken: first.nextPageToken! });
  assert.not.ok(client.requests.at(-1)!.request.query.includes('ORDER BY'), 'no sorted attempt for an unsorted token');
  for (const limit of [0, 1001, 2.5]) {
    try {
      await lister.list({ limit });
      assert.unreachable(`limit ${limit}`);
    } catch (error) {
      assert.is((error as Error).name, 'ValidationError');
    }
  }
  try {
    await lister.list({ workflowName: 'other', limit: 1, pageToken: first.nextPageToken! });
    assert.unreachable('a token of another filter');
  } catch (error) {
    assert.is((error as Error).name, 'ValidationError');
  }
  // A NUL in a filter: SQL visibility stores fail on it (503 before); no run can match, so no call is made.
  const calls = client.count('listWorkflowExecutions');
  assert.equal(await lister.list({ workflowName: 'ec\u0000ho', limit: 10 }), { runs: [], nextPageToken: null });
  assert.equal(await lister.list({ catalog: '\u0000', limit: 10 }), { runs: [], nextPageToken: null });
  assert.is(client.count('listWorkflowExecutions'), calls, 'Temporal was not asked');
  try {
    await lister.list({ catalog: 'main\u0000', limit: 1, pageToken: first.nextPageToken! });
    assert.unreachable('a token for a filter that has no pages');
  } catch (error) {
    assert.is((error as Error).name, 'ValidationError');
  }
});

test('reset point: the workflow task that ended after the last completion of the step', () => {
  const history = arithmeticHistory();
  const point = findResetPoint(history, 'add_one');
  assert.is(point.kind, 'found');
  if (point.kind === 'found') {
    assert.is(toNumber(point.workflowTaskFinishEventId), 10);
    assert.is(point.completedEventId, 7);
  }
  assert.equal(findResetPoint(history, 'double'), { kind: 'not_found' });
  const retried = [
    ...history.slice(0, 10),
    rawEvent(11, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', { activityTaskScheduledEventAttributes: { activityType: { name: 'arithmetic#add_one' } } }),
    rawEvent(12, 'EVENT_TYPE_ACTIVITY_TASK_STARTED', { activityTaskStartedEventAttributes: { scheduledEventId: '11' } }),
    rawEvent(13, 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED', { activityTaskCompletedEventAttributes: { scheduledEventId: '11' } }),
    rawEvent(14, 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED'),
    rawEvent(15, 'EVENT_TYPE_WORKFLOW_TASK_STARTED'),
    rawEvent(16, 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED'),
  ];
  const last = findResetPoint(retried, 'add_one');
  assert.is(last.kind === 'found' ? toNumber(last.workflowTaskFinishEventId) : 0, 16, 'the LAST completion');
  const neverCompleted = [
    rawEvent(1, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', { activityTaskScheduledEventAttributes: { activityType: { name: 'w#s' } } }),
    rawEvent(2, 'EVENT_TYPE_ACTIVITY_TASK_FAILED', { activityTaskFailedEventAttributes: { scheduledEventId: '1' } }),
  ];
  assert.equal(findResetPoint(neverCompleted, 's'), { kind: 'not_completed' });
  assert.equal(findResetPoint(history.slice(0, 7), 'add_one'), { kind: 'completion_not_seen_yet' }, 'completed, but no workflow task saw it yet');
  // Terminated between the completion and the workflow task that would have seen it: waiting would not help.
  const closedFirst = [...history.slice(0, 7), rawEvent(8, 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED'), rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED')];
  assert.equal(findResetPoint(closedFirst, 'add_one'), { kind: 'completion_never_seen' });
});

test('the reset reason carries the step and reads back; foreign reasons are kept whole', () => {
  assert.equal(parseResetReason(resetReasonWithStep('fix (really)', 'add_one')), { reason: 'fix (really)', stepName: 'add_one' });
  assert.equal(parseResetReason(resetReasonWithStep('', 'a.b:c-d')), { reason: '', stepName: 'a.b:c-d' });
  assert.equal(parseResetReason('reset from the UI'), { reason: 'reset from the UI' });
});

test.run();
