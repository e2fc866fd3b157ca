import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isClosingEventType } from '../../../core/domain/history.js';
import { HistoryMapper } from '../../../adapters/temporal/engine/historyMapper.js';
import { resetReasonWithStep } from '../../../adapters/temporal/engine/resetReason.js';
import type { HistoryEvent as NeutralEvent } from '../../../core/domain/history.js';
import { FEEDBACK_WAIT_MEMO_KEY, TRACE_MEMO_KEY } from '../../../adapters/temporal/protocol.js';
import { arithmeticHistory, eventTime, payloads, rawEvent } from './protoFixtures.js';

function mapAll(events: ReturnType<typeof arithmeticHistory>, mapper = new HistoryMapper()): NeutralEvent[] {
  return events.flatMap((event) => mapper.map(event) ?? []);
}

test('a run: workflow tasks left out, neutral ids 1..n, times ISO, step names and attempts', () => {
  assert.equal(mapAll(arithmeticHistory()), [
    { eventId: 1, type: 'workflow_started', time: eventTime(1), attributes: { workflowName: 'arithmetic', catalog: 'main', input: { n: 1 } } },
    { eventId: 2, type: 'step_scheduled', time: eventTime(5), stepName: 'add_one', attributes: { activityType: 'arithmetic#add_one', kind: 'step', input: 1 } },
    { eventId: 3, type: 'step_started', time: eventTime(6), stepName: 'add_one', attributes: { attempt: 2 } },
    { eventId: 4, type: 'step_completed', time: eventTime(7), stepName: 'add_one', attributes: { attempt: 2, output: 2 } },
    { eventId: 5, type: 'workflow_completed', time: eventTime(11), attributes: { output: { result: 2 } } },
  ]);
});

test('the mapper state carries open steps across pages', () => {
  const events = arithmeticHistory();
  const first = new HistoryMapper();
  mapAll(events.slice(0, 6), first);
  const resumed = new HistoryMapper(JSON.parse(JSON.stringify(first.snapshot())));
  assert.equal(mapAll(events.slice(6), resumed).map((event) => [event.eventId, event.type, event.stepName, event.attributes.attempt]), [
    [4, 'step_completed', 'add_one', 2],
    [5, 'workflow_completed', undefined, undefined],
  ]);
  assert.equal(resumed.snapshot().steps, {}, 'an ended step is forgotten');
});

test('step kinds: the webhook call is internal, others are steps', () => {
  const scheduled = (id: number, type: string) =>
    rawEvent(id, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', {
      activityTaskScheduledEventAttributes: { activityType: { name: type }, input: payloads(null) },
    });
  const kinds = mapAll([scheduled(1, 'wf#judge'), scheduled(2, 'wf#webhook'), scheduled(3, 'wf#plain')]).map((event) => event.attributes.kind);
  assert.equal(kinds, ['step', 'internal_step', 'step']);
});

test('failed, timed-out and cancelled steps are step_failed; a step cancelled before it started leaves nothing', () => {
  const events = [
    rawEvent(1, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', { activityTaskScheduledEventAttributes: { activityType: { name: 'wf#a' } } }),
    rawEvent(2, 'EVENT_TYPE_ACTIVITY_TASK_STARTED', { activityTaskStartedEventAttributes: { scheduledEventId: '1', attempt: 3 } }),
    rawEvent(3, 'EVENT_TYPE_ACTIVITY_TASK_FAILED', {
      activityTaskFailedEventAttributes: {
        scheduledEventId: '1',
        failure: { message: 'boom', applicationFailureInfo: { type: 'TypeError', nonRetryable: true } },
      },
    }),
    rawEvent(4, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', {
      activityTaskScheduledEventAttributes: { activityType: { name: 'wf#b' }, startToCloseTimeout: { seconds: '0', nanos: 300_000_000 } },
    }),
    rawEvent(5, 'EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT', {
      activityTaskTimedOutEventAttributes: { scheduledEventId: '4', failure: { message: 'activity StartToClose timeout', timeoutFailureInfo: {} } },
    }),
    rawEvent(6, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', { activityTaskScheduledEventAttributes: { activityType: { name: 'wf#c' } } }),
    rawEvent(7, 'EVENT_TYPE_ACTIVITY_TASK_STARTED', { activityTaskStartedEventAttributes: { scheduledEventId: '6', attempt: 1 } }),
    rawEvent(8, 'EVENT_TYPE_ACTIVITY_TASK_CANCELED', { activityTaskCanceledEventAttributes: { scheduledEventId: '6', startedEventId: '7' } }),
    rawEvent(9, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', { activityTaskScheduledEventAttributes: { activityType: { name: 'wf#d' } } }),
    rawEvent(10, 'EVENT_TYPE_ACTIVITY_TASK_CANCELED', { activityTaskCanceledEventAttributes: { scheduledEventId: '9' } }),
  ];
  const failed = mapAll(events).filter((event) => event.type === 'step_failed');
  assert.equal(failed.map((event) => [event.stepName, event.attributes]), [
    ['a', { attempt: 3, error: { name: 'TypeError', message: 'boom', retryable: false } }],
    // Worded as the embedded engine words it, not as Temporal does ("activity StartToClose timeout").
    ['b', { attempt: 1, error: { name: 'StepTimeoutError', message: 'Step wf#b attempt 1 timed out after 300 ms' } }],
    ['c', { attempt: 1, error: { name: 'CancelledError', message: 'Step wf#c cancelled' } }],
  ]);
});

test('timers, the feedback signal (other signals left out), cancel request, children', () => {
  const events = [
    rawEvent(1, 'EVENT_TYPE_TIMER_STARTED', { timerStartedEventAttributes: { timerId: '1', startToFireTimeout: { seconds: '1', nanos: 500_000_000 } } }),
    rawEvent(2, 'EVENT_TYPE_TIMER_FIRED', { timerFiredEventAttributes: { timerId: '1', startedEventId: '1' } }),
    rawEvent(3, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', { workflowExecutionSignaledEventAttributes: { signalName: 'flowgate.feedback', input: payloads({ ok: 1 }) } }),
    rawEvent(4, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', { workflowExecutionSignaledEventAttributes: { signalName: 'somethingElse', input: payloads(1) } }),
    rawEvent(5, 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED', { workflowExecutionCancelRequestedEventAttributes: { cause: 'x' } }),
    rawEvent(6, 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED'),
    rawEvent(7, 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED', {
      childWorkflowExecutionStartedEventAttributes: { workflowType: { name: 'child' }, workflowExecution: { workflowId: 'c1', runId: 'r1' } },
    }),
    rawEvent(8, 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED', {
      childWorkflowExecutionCompletedEventAttributes: { workflowExecution: { workflowId: 'c1', runId: 'r1' }, result: payloads('done') },
    }),
    rawEvent(9, 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED', {
      childWorkflowExecutionFailedEventAttributes: { workflowExecution: { workflowId: 'c2', runId: 'r2' }, failure: { message: 'no', applicationFailureInfo: { type: 'Nope' } } },
    }),
    rawEvent(10, 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED', { childWorkflowExecutionTerminatedEventAttributes: { workflowExecution: { workflowId: 'c3', runId: 'r3' } } }),
    rawEvent(11, 'EVENT_TYPE_MARKER_RECORDED'),
    rawEvent(12, 'EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED'),
  ];
  assert.equal(mapAll(events).map((event) => [event.eventId, event.type, event.attributes]), [
    [1, 'timer_started', { timerId: '1', durationMs: 1500 }],
    [2, 'timer_fired', { timerId: '1' }],
    [3, 'signal_received', { signalName: 'feedback', payload: { ok: 1 } }],
    [4, 'workflow_cancel_requested', {}],
    [5, 'child_started', { workflowName: 'child', childWorkflowId: 'c1', childRunId: 'r1' }],
    [6, 'child_completed', { childWorkflowId: 'c1', childRunId: 'r1', output: 'done' }],
    [7, 'child_failed', { childWorkflowId: 'c2', childRunId: 'r2', status: 'failed', error: { name: 'Nope', message: 'no' } }],
    [8, 'child_failed', { childWorkflowId: 'c3', childRunId: 'r3', status: 'terminated', error: { name: 'WorkflowTerminatedError', message: 'The workflow run was terminated' } }],
  ]);
});

test('the memo upsert a wait makes as it begins is feedback_wait_started; other upserts are left out', () => {
  const upsert = (id: number, fields: Record<string, unknown>) =>
    rawEvent(id, 'EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED', {
      workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, payloads(value).payloads![0]])) } },
    });
  const events = [
    upsert(1, { [FEEDBACK_WAIT_MEMO_KEY]: {} }),
    upsert(2, { [FEEDBACK_WAIT_MEMO_KEY]: { timeoutMs: 60_000 } }),
    upsert(3, { [TRACE_MEMO_KEY]: { local: '/traces/x.json' } }),
  ];
  assert.equal(mapAll(events).map((event) => [event.eventId, event.type, event.time, event.attributes]), [
    [1, 'feedback_wait_started', eventTime(1), {}],
    [2, 'feedback_wait_started', eventTime(2), { timeoutMs: 60_000 }],
  ]);
});

test('closing events and their attributes; isClosingEventType', () => {
  const detail = { flowgateFailure: { name: 'StepFailedError', message: 'it broke', activityType: 'wf#s', retryable: false } };
  const closings = [
    rawEvent(1, 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED', {
      workflowExecutionFailedEventAttributes: { failure: { message: 'it broke', applicationFailureInfo: { type: 'StepFailedError', details: payloads(detail) } } },
    }),
    rawEvent(2, 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'),
    rawEvent(3, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED', { workflowExecutionTerminatedEventAttributes: { reason: 'enough' } }),
    rawEvent(4, 'EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT'),
    rawEvent(5, 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW', {
      workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'next', input: payloads({ n: 0 }) },
    }),
  ];
  const mapped = mapAll(closings);
  assert.equal(mapped.map((event) => [event.type, event.attributes]), [
    ['workflow_failed', { error: detail.flowgateFailure }],
    ['workflow_cancelled', {}],
    ['workflow_terminated', { reason: 'enough' }],
    ['workflow_timed_out', {}],
    ['workflow_continued_as_new', { newRunId: 'next', input: { n: 0 } }],
  ]);
  assert.ok(mapped.every((event) => isClosingEventType(event.type)));
  assert.not.ok(isClosingEventType('workflow_started'));
});

test('workflow_started of a continued run and of a child; the reset mark with its step', () => {
  const events = [
    rawEvent(1, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', {
      workflowExecutionStartedEventAttributes: {
        workflowType: { name: 'w' },
        taskQueue: { name: 'q' },
        continuedExecutionRunId: 'previous',
        parentWorkflowExecution: { workflowId: 'parent', runId: 'p1' },
      },
    }),
    rawEvent(2, 'EVENT_TYPE_WORKFLOW_TASK_FAILED', {
      workflowTaskFailedEventAttributes: { cause: 'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW', failure: { message: resetReasonWithStep('why', 'add_one') }, baseRunId: 'base' },
    }),
    rawEvent(3, 'EVENT_TYPE_WORKFLOW_TASK_FAILED', {
      workflowTaskFailedEventAttributes: { cause: 'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW', failure: { message: 'from the UI' }, baseRunId: 'base2' },
    }),
    rawEvent(4, 'EVENT_TYPE_WORKFLOW_TASK_FAILED', { workflowTaskFailedEventAttributes: { cause: 'WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE' } }),
  ];
  assert.equal(mapAll(events).map((event) => event.attributes), [
    { workflowName: 'w', catalog: 'q', input: undefined, continuedFromRunId: 'previous', parentWorkflowId: 'parent' },
    { reason: 'why', stepName: 'add_one', resetFromRunId: 'base' },
    { reason: 'from the UI', resetFromRunId: 'base2' },
  ]);
});

test('an undecodable payload shows as null instead of failing the page', () => {
  const [event] = mapAll([
    rawEvent(1, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', {
      activityTaskScheduledEventAttributes: { activityType: { name: 'w#s' }, input: { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from([1, 2]) }] } },
    }),
  ]);
  assert.is(event?.attributes.input, null);
});

test.run();
