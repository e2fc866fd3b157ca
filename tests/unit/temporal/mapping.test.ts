import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failureOf, stepFailureOf } from '../../../adapters/temporal/engine/failures.js';
import { closingFailureOf, continuedRunIdOf, outcomeOf } from '../../../adapters/temporal/engine/outcome.js';
import { resetReasonWithStep } from '../../../adapters/temporal/engine/resetReason.js';
import { enums } from '../../../adapters/temporal/engine/proto.js';
import { isInternalRun, runDescriptionOf } from '../../../adapters/temporal/engine/runDescription.js';
import { runStatusOf, VISIBILITY_STATUS } from '../../../adapters/temporal/engine/status.js';
import { toMillis, toNumber } from '../../../adapters/temporal/engine/values.js';
import { RUN_STATUSES } from '../../../core/domain/status.js';
import { defaultPayloadConverter } from '@temporalio/common';
import { TRACE_MEMO_KEY } from '../../../adapters/temporal/protocol.js';
import { RERUN_MEMO_KEY, rerunMemo } from '../../../adapters/temporal/engine/rerunMemo.js';
import { executionInfo, failure, payloads, rawEvent, timestamp } from './protoFixtures.js';

const Status = enums.WorkflowExecutionStatus;

test('every Temporal execution status maps; paused is still running; unknown values are undefined', () => {
  assert.equal(
    [
      Status.WORKFLOW_EXECUTION_STATUS_RUNNING,
      Status.WORKFLOW_EXECUTION_STATUS_COMPLETED,
      Status.WORKFLOW_EXECUTION_STATUS_FAILED,
      Status.WORKFLOW_EXECUTION_STATUS_CANCELED,
      Status.WORKFLOW_EXECUTION_STATUS_TERMINATED,
      Status.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
      Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
      Status.WORKFLOW_EXECUTION_STATUS_PAUSED,
    ].map(runStatusOf),
    ['running', 'completed', 'failed', 'cancelled', 'terminated', 'continued_as_new', 'timed_out', 'running'],
  );
  assert.is(runStatusOf(Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED), undefined);
  assert.is(runStatusOf(99), undefined);
  assert.equal(Object.keys(VISIBILITY_STATUS).sort(), [...RUN_STATUSES].sort(), 'a visibility name for every run status');
});

test('a closed run\'s trace memo becomes localTracePath (the worker\'s file); an open run, or a memo not ours, gives none', () => {
  const withMemo = (status: string, value: unknown) =>
    runDescriptionOf(
      executionInfo({
        execution: { workflowId: 'w', runId: 'r' },
        type: { name: 'x' },
        status,
        startTime: timestamp('2026-01-01T00:00:00Z'),
        memo: { fields: { [TRACE_MEMO_KEY]: defaultPayloadConverter.toPayload(value) } },
      }),
    );
  const path = '/var/lib/worker/traces/x/2026-01-01T00:00:00.000Z_w_r.json';
  assert.is(withMemo('WORKFLOW_EXECUTION_STATUS_COMPLETED', { local: path }).localTracePath, path);
  assert.is(withMemo('WORKFLOW_EXECUTION_STATUS_RUNNING', { local: path }).localTracePath, undefined);
  for (const odd of [{ local: '' }, { local: 7 }, 'text', null]) {
    assert.not.ok('localTracePath' in withMemo('WORKFLOW_EXECUTION_STATUS_FAILED', odd), JSON.stringify(odd));
  }
});

test("a rerun's memo becomes rerunOf, open or closed, as the start wrote it; a memo not ours gives none", () => {
  const withMemo = (status: string, value: unknown) =>
    runDescriptionOf(
      executionInfo({
        execution: { workflowId: 'w', runId: 'r' },
        type: { name: 'x' },
        status,
        startTime: timestamp('2026-01-01T00:00:00Z'),
        memo: { fields: { [RERUN_MEMO_KEY]: defaultPayloadConverter.toPayload(value) } },
      }),
    );
  const written = rerunMemo({ workflowId: 'orders-7', runId: '0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f' })[RERUN_MEMO_KEY];
  for (const status of ['WORKFLOW_EXECUTION_STATUS_RUNNING', 'WORKFLOW_EXECUTION_STATUS_COMPLETED']) {
    assert.equal(withMemo(status, written).rerunOf, { workflowId: 'orders-7', runId: '0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f' });
  }
  for (const odd of [{ workflowId: 'w' }, { workflowId: 1, runId: 'r' }, 'text', null]) {
    assert.not.ok('rerunOf' in withMemo('WORKFLOW_EXECUTION_STATUS_FAILED', odd), JSON.stringify(odd));
  }
});

test('Long, Timestamp and Duration values', () => {
  assert.is(toNumber(rawEvent(42, 'EVENT_TYPE_TIMER_FIRED').eventId), 42);
  assert.is(toNumber('7'), 7);
  assert.is(toMillis({ seconds: 2, nanos: 500_000_000 }), 2500);
  assert.is(toMillis(null), undefined);
});

test('a run description from WorkflowExecutionInfo (describe and visibility)', () => {
  const info = executionInfo({
    execution: { workflowId: 'w', runId: 'r2' },
    type: { name: 'arithmetic' },
    taskQueue: 'main',
    status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED',
    startTime: timestamp('2026-01-01T00:00:00.250Z'),
    closeTime: timestamp('2026-01-01T00:00:01.500Z'),
    firstRunId: 'r1',
    parentExecution: { workflowId: 'p', runId: 'pr' },
    rootExecution: { workflowId: 'p', runId: 'pr' },
  });
  assert.equal(runDescriptionOf(info), {
    workflowId: 'w',
    runId: 'r2',
    workflowName: 'arithmetic',
    catalog: 'main',
    status: 'completed',
    startedAt: new Date('2026-01-01T00:00:00.250Z'),
    closedAt: new Date('2026-01-01T00:00:01.500Z'),
    firstRunId: 'r1',
    parent: { workflowId: 'p', runId: 'pr' },
    root: { workflowId: 'p', runId: 'pr' },
  });
  const open = runDescriptionOf(
    executionInfo({
      execution: { workflowId: 'w', runId: 'r' },
      type: { name: 'x' },
      status: 'WORKFLOW_EXECUTION_STATUS_RUNNING',
      startTime: timestamp('2026-01-01T00:00:00Z'),
      rootExecution: { workflowId: 'w', runId: 'r' },
    }),
  );
  assert.equal([open.closedAt, open.firstRunId, 'root' in open, 'parent' in open], [null, 'r', false, false]);
  assert.ok(isInternalRun(executionInfo({ type: { name: 'flowgate.catalog' } })));
  assert.ok(isInternalRun(executionInfo({ type: { name: 'flowgate.callback' } })));
  assert.not.ok(isInternalRun(info));
  try {
    runDescriptionOf(executionInfo({ execution: { workflowId: 'w', runId: 'r' }, status: 'WORKFLOW_EXECUTION_STATUS_UNSPECIFIED' }));
    assert.unreachable('an unknown status');
  } catch (error) {
    assert.is((error as Error).name, 'EngineError');
  }
});

test('failures: the flowgate detail wins; otherwise the ApplicationFailure type and message, causes, wrappers', () => {
  const detail = { flowgateFailure: { name: 'RangeError', message: 'too big', activityType: 'w#s', retryable: false, cause: { name: 'Error', message: 'root' } } };
  assert.equal(failureOf(failure({ message: 'too big', applicationFailureInfo: { type: 'RangeError', details: payloads(detail) } })), detail.flowgateFailure);
  assert.equal(failureOf(failure({ message: 'plain', applicationFailureInfo: { nonRetryable: true }, cause: { message: 'why', applicationFailureInfo: { type: 'Cause' } } })), {
    name: 'Error',
    message: 'plain',
    retryable: false,
    cause: { name: 'Cause', message: 'why' },
  });
  assert.equal(
    failureOf(failure({ message: 'activity failed', activityFailureInfo: { activityType: { name: 'w#s' } }, cause: { message: 'bad', applicationFailureInfo: { type: 'Bad' } } })),
    { name: 'Bad', message: 'bad', activityType: 'w#s' },
  );
  assert.equal(failureOf(failure({ message: 'child', childWorkflowExecutionFailureInfo: {}, cause: { message: 'inner', applicationFailureInfo: { type: 'Inner' } } })), {
    name: 'Inner',
    message: 'inner',
  });
  const encoded = failure({ message: 'Encoded failure', encodedAttributes: payloads({ message: 'the real message', stack_trace: '' }).payloads![0], applicationFailureInfo: { type: 'X' } });
  assert.equal(failureOf(encoded), { name: 'X', message: 'the real message' });
  assert.equal(failureOf(failure({ message: 'slow', timeoutFailureInfo: {} })), { name: 'TimeoutError', message: 'slow' });
  assert.equal(failureOf(undefined), { name: 'Error', message: 'The workflow run failed' });
  assert.equal(stepFailureOf(failure({ message: 'slow', timeoutFailureInfo: {} })), { name: 'StepTimeoutError', message: 'slow', retryable: true });
  assert.equal(stepFailureOf(failure({ message: '', canceledFailureInfo: {} })), { name: 'CancelledError', message: 'Step cancelled' });
});

test('outcome from the closing event: output, failure, and how runs without an error ended', () => {
  const run = runDescriptionOf(
    executionInfo({ execution: { workflowId: 'w', runId: 'r' }, type: { name: 'x' }, status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED', startTime: timestamp('2026-01-01T00:00:00Z') }),
  );
  const completed = rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', { workflowExecutionCompletedEventAttributes: { result: payloads({ ok: true }) } });
  assert.equal(outcomeOf(run, completed), { run, output: { ok: true }, failure: null });
  assert.equal(closingFailureOf(rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED')), { name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' });
  assert.equal(closingFailureOf(rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED', { workflowExecutionTerminatedEventAttributes: { reason: 'ops' } })), {
    name: 'WorkflowTerminatedError',
    message: 'ops',
  });
  assert.equal(closingFailureOf(rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED')), { name: 'WorkflowTerminatedError', message: 'The workflow run was terminated' });
  // A keyed reset's reason closes the run it replaces: its key record is not part of the message.
  const keyedReset = resetReasonWithStep('oops', 'charge', { key: 'k'.repeat(36), fingerprint: 'f'.repeat(36), at: '2026-01-01T00:00:00.000Z' }, 'ci');
  assert.equal(closingFailureOf(rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED', { workflowExecutionTerminatedEventAttributes: { reason: keyedReset } })), {
    name: 'WorkflowTerminatedError',
    message: 'oops (reset to after step "charge" by apikey:ci)',
  });
  // The history service's own termination of a run over limit.historySize.error has a name of its own.
  const overLimit = { workflowExecutionTerminatedEventAttributes: { reason: 'Workflow history size exceeds limit.' } };
  assert.equal(closingFailureOf(rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED', overLimit)), {
    name: 'HistorySizeLimitExceededError',
    message: 'Workflow history size exceeds limit.',
  });
  assert.equal(closingFailureOf(rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT'))?.name, 'WorkflowTimedOutError');
  assert.equal(
    closingFailureOf(rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED', { workflowExecutionFailedEventAttributes: { failure: { message: 'm', applicationFailureInfo: { type: 'T' } } } })),
    { name: 'T', message: 'm' },
  );
  const continued = rawEvent(9, 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW', { workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'next' } });
  assert.equal([closingFailureOf(continued), continuedRunIdOf(continued), continuedRunIdOf(completed)], [null, 'next', undefined]);
});

test.run();
